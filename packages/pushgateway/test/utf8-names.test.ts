// --push.enable-utf8-names (upstream 1.11.0, README "UTF-8 support"): quoted UTF-8 metric and label names in text
// bodies, `U__` value-encoding escaping of label names in push paths, and scrapes that escape the names as the
// scraper asks (`escaping=underscores` unless it asks for `allow-utf-8`, which gets them quoted).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startGateway, stopAll } from "./support/processes.js";

after(stopAll);

let utf8: string;
let legacy: string;

before(async () => {
  [{ base: utf8 }, { base: legacy }] = await Promise.all([
    startGateway(["--push.enable-utf8-names"]),
    startGateway(),
  ]);
});

const BODY = [
  '# HELP "some.metric" A dotted name.',
  '# TYPE "some.metric" gauge',
  '{"some.metric",instance="x","dotted.label.name"="v"} 42',
  "plain_metric 1",
  "",
].join("\n");

const scrape = async (base: string, accept?: string) =>
  (await fetch(`${base}/metrics`, accept === undefined ? {} : { headers: { Accept: accept } })).text();

test("with the flag: quoted names are accepted; a plain scrape escapes them with underscores", async () => {
  const push = await fetch(`${utf8}/metrics/job/j`, { method: "PUT", body: BODY });
  assert.equal(push.status, 200, await push.text());
  const text = await scrape(utf8);
  assert.match(text, /^# HELP some_metric A dotted name\.$/m);
  assert.match(text, /^# TYPE some_metric gauge$/m);
  assert.match(text, /^some_metric\{dotted_label_name="v",instance="x",job="j"\} 42$/m);
  assert.match(text, /^plain_metric\{instance="",job="j"\} 1$/m);
});

test("with the flag: escaping=allow-utf-8 gets the names quoted, as the text format writes them", async () => {
  const accept = "text/plain;version=0.0.4;escaping=allow-utf-8";
  const response = await fetch(`${utf8}/metrics`, { headers: { Accept: accept } });
  assert.equal(
    response.headers.get("content-type"),
    "text/plain; version=0.0.4; charset=utf-8; escaping=allow-utf-8",
  );
  const text = await response.text();
  assert.match(text, /^# TYPE "some\.metric" gauge$/m);
  assert.match(text, /^\{"some\.metric","dotted\.label\.name"="v",instance="x",job="j"\} 42$/m);
  // dots and values escaping, as prometheus/common's EscapeName.
  assert.match(
    await scrape(utf8, "text/plain;escaping=dots"),
    /^some_dot_metric\{dotted_dot_label_dot_name="v"/m,
  );
  assert.match(
    await scrape(utf8, "text/plain;escaping=values"),
    /^U__some_2e_metric\{U__dotted_2e_label_2e_name="v"/m,
  );
});

test("with the flag: U__ escaped label names in the path are unescaped, also with @base64 values", async () => {
  for (const path of ["/metrics/job/k/U__foo_2e_bar/baz", "/metrics/job/k/U__foo_2e_bar@base64/YmF6"]) {
    assert.equal(
      (await fetch(`${utf8}${path}`, { method: "PUT", body: "esc_metric 3\n" })).status,
      200,
      path,
    );
    const text = await scrape(utf8, "text/plain;escaping=allow-utf-8");
    assert.match(text, /^esc_metric\{"foo\.bar"="baz",instance="",job="k"\} 3$/m, path);
  }
  assert.equal((await fetch(`${utf8}/metrics/job/k/U__foo_2e_bar`, { method: "DELETE" })).status, 400);
  assert.equal((await fetch(`${utf8}/metrics/job/k/U__foo_2e_bar/baz`, { method: "DELETE" })).status, 202);
  assert.doesNotMatch(await scrape(utf8), /job="k"/);
});

// A label named __proto__ was dropped on the way (a plain object's key), and the push went to the group {job="k2"}.
test("with the flag: a U__ name unescaping to __proto__ is a reserved label name, refused like __x", async () => {
  const res = await fetch(`${utf8}/metrics/job/k2/U______proto____/x`, { method: "PUT", body: "m 1\n" });
  assert.equal(res.status, 400);
  assert.match(await res.text(), /has a label with an invalid name: __proto__\n$/);
  // Only the refused group's failure time, as for any refused push to a new group; no series of the push.
  const text = await scrape(utf8);
  assert.match(text, /^push_failure_time_seconds\{__proto__="x",instance="",job="k2"\} /m);
  assert.doesNotMatch(text, /^m\{.*job="k2"/m);
});

test("without the flag: quoted names are a parse error and U__ names are ordinary label names", async () => {
  const refused = await fetch(`${legacy}/metrics/job/j`, { method: "PUT", body: BODY });
  assert.equal(refused.status, 400);
  assert.match(await refused.text(), /^text format parsing error in line 1: /);
  const kept = await fetch(`${legacy}/metrics/job/j/U__label_2e_name2/v`, { method: "PUT", body: "m 1\n" });
  assert.equal(kept.status, 200);
  assert.match(await scrape(legacy), /^m\{U__label_2e_name2="v",instance="",job="j"\} 1$/m);
});

test("with the flag: a family whose UTF-8 label name is in one group only is escaped across all groups", async () => {
  assert.equal((await fetch(`${utf8}/metrics/job/g1`, { method: "PUT", body: "shared 1\n" })).status, 200);
  const dotted = await fetch(`${utf8}/metrics/job/g2`, { method: "PUT", body: 'shared{"a.b"="c"} 2\n' });
  assert.equal(dotted.status, 200);
  const text = await scrape(utf8);
  assert.match(text, /^shared\{instance="",job="g1"\} 1$/m);
  assert.match(text, /^shared\{a_b="c",instance="",job="g2"\} 2$/m);
  const protobuf = await fetch(`${utf8}/metrics`, {
    headers: {
      Accept: "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited",
    },
  });
  assert.equal(protobuf.status, 200);
  assert.ok((await protobuf.arrayBuffer()).byteLength > 0);
});
