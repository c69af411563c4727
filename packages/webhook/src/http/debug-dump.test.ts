// The `-debug` request dump and the body errors it and the handler log, against what Debian's webhook 2.8.0 (Go
// 1.19.8) logged for the same requests (its lines copied here; test/peer-parity.peers.test.ts compares live).
import assert from "node:assert/strict";
import { test } from "node:test";
import { BodyReader } from "./body-reader.js";
import { dumpRequest, scanLines } from "./debug-dump.js";

const request = (overrides: { httpVersion?: string; rawHeaders?: string[]; body?: string }) => ({
  method: "POST",
  url: "/hooks/echo",
  httpVersion: overrides.httpVersion ?? "1.1",
  rawHeaders: overrides.rawHeaders ?? ["Host", "x"],
  body: Buffer.from(overrides.body ?? ""),
});

test("a chunked body is dumped chunked again, as one chunk, the coding named as Go holds it", () => {
  const dump = dumpRequest(
    request({
      rawHeaders: ["Host", "x", "Transfer-Encoding", " Chunked ", "Content-Type", "application/json"],
      body: '{"a":"xy"}',
    }),
    "rid",
  );
  assert.equal(
    dump,
    [
      "POST /hooks/echo HTTP/1.1",
      "Host: x",
      "Transfer-Encoding: chunked",
      "Content-Type: application/json",
      "",
      "a",
      '{"a":"xy"}',
      "0",
      "",
    ]
      .map((l) => `> [rid] ${l}\n`)
      .join(""),
  );
  const empty = dumpRequest(request({ rawHeaders: ["Host", "x", "Transfer-Encoding", "chunked"] }), "rid");
  assert.ok(empty.endsWith("> [rid] Transfer-Encoding: chunked\n> [rid] \n> [rid] 0\n> [rid] \n"), empty);
});

test("HTTP/1.0 has no Transfer-Encoding for Go: neither the line nor chunks", () => {
  const dump = dumpRequest(
    request({ httpVersion: "1.0", rawHeaders: ["Host", "x", "Transfer-Encoding", "chunked"], body: "{}" }),
    "r",
  );
  assert.equal(
    dump,
    "> [r] POST /hooks/echo HTTP/1.0\n> [r] Host: x\n> [r] Connection: close\n> [r] \n> [r] {}\n",
  );
});

test("bufio.Scanner's 64 KiB: a line of 65535 bytes is dumped, one of 65536 ends the dump there", () => {
  assert.deepEqual(scanLines(Buffer.from(`a\r\n${"x".repeat(65_535)}\nb`)), ["a", "x".repeat(65_535), "b"]);
  assert.deepEqual(scanLines(Buffer.from(`a\r\n${"x".repeat(65_536)}\nb`)), ["a"]);
  // A CR before the LF counts; a last line without LF is held to the same size.
  assert.deepEqual(scanLines(Buffer.from(`${"x".repeat(65_535)}\r\nb`)), []);
  assert.deepEqual(scanLines(Buffer.from(`a\n${"x".repeat(65_535)}`)), ["a", "x".repeat(65_535)]);
  assert.deepEqual(scanLines(Buffer.from(`a\n${"x".repeat(65_536)}`)), ["a"]);
  assert.deepEqual(scanLines(Buffer.from("a\n\nb\n")), ["a", "", "b"]);
});

test("a broken body carries Go's error text (internal/chunked.go, readTrailer, textproto)", () => {
  const read = (body: string, end = false) => {
    const reader = new BodyReader({ kind: "chunked" });
    reader.push(Buffer.from(body));
    if (end) reader.end();
    return { error: reader.error, body: reader.body().toString() };
  };
  assert.deepEqual(read('a\r\n{"a":"xy"}zz\r\n'), {
    error: "malformed chunked encoding",
    body: '{"a":"xy"}',
  });
  assert.equal(read("12345678901234567\r\n").error, "http chunk length too large");
  assert.equal(read("1234567890123456z\r\n").error, "invalid byte in chunk length");
  assert.equal(read(`${"1".repeat(4096)}\r\n`).error, "header line too long");
  assert.equal(read("0\r\nno colon\r\n\r\n").error, 'malformed MIME header: missing colon: "no colon"');
  assert.equal(read("0\r\n A: b\r\n\r\n").error, "malformed MIME header initial line:  A: b");
  assert.equal(read("0\r\nA: b\r\n", true).error, "http: suspiciously long trailer after chunked body");
  assert.equal(read("0\r\nX", true).error, "http: unexpected EOF reading trailer");
  assert.equal(read("5\r\nab", true).error, "unexpected EOF");
  assert.equal(read("2\r\nab\r\n0\r\nA: b\r\n\r\n").error, undefined);
  const cut = new BodyReader({ kind: "length", length: 10 });
  cut.push(Buffer.from("ab"));
  cut.end();
  assert.deepEqual([cut.error, cut.body().toString()], ["unexpected EOF", "ab"]);
});
