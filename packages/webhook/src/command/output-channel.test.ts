import assert from "node:assert/strict";
import { test } from "node:test";
import { OutputChannel } from "./output-channel.js";

test("output channel: the runner waits until the reader took each piece; the end comes after the last", async () => {
  const channel = new OutputChannel();
  let taken = false;
  const held = channel.push(Buffer.from("a"));
  assert.ok(held instanceof Promise);
  void held?.then(() => {
    taken = true;
  });
  await Promise.resolve();
  assert.equal(taken, false);
  channel.end({ output: Buffer.alloc(0) });
  assert.deepEqual(await channel.next(), { chunk: Buffer.from("a") });
  await held;
  assert.equal(taken, true);
  assert.deepEqual(await channel.next(), { result: { output: Buffer.alloc(0) } });
});

test("output channel: a waiting reader gets the piece at once; after close pieces are dropped", async () => {
  const channel = new OutputChannel();
  const next = channel.next();
  assert.equal(channel.push(Buffer.from("b")), undefined);
  assert.deepEqual(await next, { chunk: Buffer.from("b") });
  const held = channel.push(Buffer.from("c"));
  channel.close();
  await held;
  assert.equal(channel.push(Buffer.from("d")), undefined);
});
