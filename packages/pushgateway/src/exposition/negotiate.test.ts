import assert from "node:assert/strict";
import { test } from "node:test";
import { negotiate, parseAccept } from "./negotiate.js";

const MF = "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily";

test("protobuf encodings are chosen by the first matching entry, with the asked escaping scheme", () => {
  assert.deepEqual(negotiate(`${MF};encoding=delimited;escaping=allow-utf-8`), {
    format: "protobuf-delimited",
    escaping: "allow-utf-8",
    contentType:
      "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited; escaping=allow-utf-8",
  });
  assert.equal(negotiate(`${MF};encoding=compact-text`).format, "protobuf-compact-text");
  assert.equal(negotiate(`text/plain,${MF};encoding=delimited`).format, "text");
  assert.equal(negotiate(`${MF};encoding=toString`).format, "text");
  assert.equal(negotiate(undefined).format, "text");
});

test("negotiate() takes the escaping of the entries read up to the match, in goautoneg's order, as expfmt does", () => {
  // An earlier entry that does not match still sets the scheme; one after the match is not read.
  assert.equal(negotiate("application/json;escaping=dots,text/plain").escaping, "dots");
  assert.equal(negotiate("text/plain,application/json;escaping=dots").escaping, "underscores");
  // Sorted by q first: the q=1 entry comes first, so its scheme is read even though it is written last.
  assert.equal(
    negotiate(`text/plain;q=0.5;escaping=values,${MF};encoding=text;escaping=allow-utf-8`).escaping,
    "allow-utf-8",
  );
  // No entry matches: the last known scheme, text 0.0.4.
  assert.deepEqual(negotiate("application/json;escaping=values,text/html;escaping=bogus"), {
    format: "text",
    escaping: "values",
    contentType: "text/plain; version=0.0.4; charset=utf-8; escaping=values",
  });
});

test("Accept entries sort as goautoneg's insertion sort leaves them", () => {
  const order = (h: string) => parseAccept(h).map((a) => `${a.type}/${a.subType};q=${a.q}`);
  assert.deepEqual(order("a/b;q=0.1,c/d;q=0.5"), ["c/d;q=0.5", "a/b;q=0.10000000149011612"]);
  // A concrete type goes before `*/*` whatever the q-values; equal ones keep their order.
  assert.deepEqual(order("*/*,x/y;q=0.1,u/v;q=0.1"), [
    "x/y;q=0.10000000149011612",
    "u/v;q=0.10000000149011612",
    "*/*;q=1",
  ]);
  assert.deepEqual(order("bad,x/y/z, *;q=x"), ["*/*;q=0"]);
});

test("an Accept header with 1 MB of spaces inside an entry is read in linear time", {
  timeout: 20_000,
}, () => {
  const accept = `text/plain;q=0.5, application/x${" ".repeat(1_000_000)}y, application/json`;
  assert.equal(negotiate(accept).format, negotiate("text/plain;q=0.5").format);
});
