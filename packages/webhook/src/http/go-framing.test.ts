// goResponseHead against what Go's chunkWriter.writeHeader sends (server.go: bodyAllowedForStatus, suppressedHeaders).
import assert from "node:assert/strict";
import { test } from "node:test";
import { goResponseHead } from "./go-framing.js";

const lines = (head: string) => head.split("\r\n").filter((l) => l !== "" && !l.startsWith("Date:"));
const request = { httpVersion: "1.1", method: "POST", close: true } as const;

test("a status without a body gets no sniffed Content-Type; 304 drops the handler's own too", () => {
  // What goWireHeaders makes of an upstream answer: the handler's headers, Content-Length, the sniffed type.
  const sniffed = { "X-Global": "g", "Content-Length": "30", "Content-Type": "text/plain; charset=utf-8" };
  assert.deepEqual(lines(goResponseHead(204, sniffed, request).head), [
    "HTTP/1.1 204 No Content",
    "X-Global: g",
    "Connection: close",
  ]);
  assert.deepEqual(lines(goResponseHead(200, sniffed, request).head), [
    "HTTP/1.1 200 OK",
    "X-Global: g",
    "Content-Length: 30",
    "Content-Type: text/plain; charset=utf-8",
    "Connection: close",
  ]);
  const own = { "Content-Type": "application/json", "Content-Length": "2" };
  assert.deepEqual(lines(goResponseHead(204, own, request).head), [
    "HTTP/1.1 204 No Content",
    "Content-Type: application/json",
    "Connection: close",
  ]);
  assert.deepEqual(lines(goResponseHead(304, own, request).head), [
    "HTTP/1.1 304 Not Modified",
    "Connection: close",
  ]);
});
