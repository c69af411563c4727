import assert from "node:assert/strict";
import { test } from "node:test";
import { EventStreamEncoder } from "./event-stream.js";

test("event stream: lines become output events whatever the pieces; the exit event comes last", () => {
  const encoder = new EventStreamEncoder();
  const euro = Buffer.from("€");
  const pieces = [
    Buffer.from("one\r"),
    Buffer.from("\ntw"),
    Buffer.concat([Buffer.from("o "), euro.subarray(0, 1)]),
    Buffer.concat([euro.subarray(1), Buffer.from("\rthree\n\nlast")]),
  ];
  const text = pieces.map((p) => encoder.output(p)).join("") + encoder.end("7");
  assert.equal(
    text,
    [
      "event: output\ndata: one\n\n",
      "event: output\ndata: two €\n\n",
      "event: output\ndata: three\n\n",
      "event: output\ndata: \n\n",
      "event: output\ndata: last\n\n",
      "event: exit\ndata: 7\n\n",
    ].join(""),
  );
});

test("event stream: a line past 64 KiB is sent in pieces instead of held back", () => {
  const encoder = new EventStreamEncoder();
  const sent = encoder.output(Buffer.alloc(70 * 1024, 0x61));
  assert.equal(sent, `event: output\ndata: ${"a".repeat(70 * 1024)}\n\n`);
  assert.equal(encoder.end("0"), "event: exit\ndata: 0\n\n");
});
