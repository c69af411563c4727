import assert from "node:assert/strict";
import { test } from "node:test";
import { RunQueue } from "./run-queue.js";

const hook = { id: "h", maximumConcurrentExecutions: 1, queue: 2 };

test("run queue: past the limit runs wait in order, past the queue they are refused; a slot passes on", async () => {
  const queue = new RunQueue();
  assert.deepEqual(queue.admit(hook), { kind: "now" });
  const second = queue.admit(hook);
  const third = queue.admit(hook);
  assert.equal(second.kind, "queued");
  assert.equal(third.kind, "queued");
  const full = queue.admit(hook);
  assert.equal(full.kind, "full");
  assert.equal(full.kind === "full" && full.retryAfter >= 1, true);
  const started: string[] = [];
  if (second.kind === "queued") void second.turn.then((go) => started.push(`second ${go}`));
  if (third.kind === "queued") void third.turn.then((go) => started.push(`third ${go}`));
  queue.release("h", 0.5);
  await Promise.resolve();
  assert.deepEqual(started, ["second true"]);
  // The slot passed on: one run still counts, so another run waits.
  assert.equal(queue.admit(hook).kind, "queued");
  assert.equal(queue.cancelWaiting(), 2);
  await Promise.resolve();
  assert.deepEqual(started, ["second true", "third false"]);
});

test("run queue: a hook without a limit always runs; idle waits for runs of queued hooks (or all)", async () => {
  const queue = new RunQueue();
  const free = { id: "free", maximumConcurrentExecutions: 0, queue: 0 };
  for (let i = 0; i < 5; i++) assert.equal(queue.admit(free).kind, "now");
  let idle = false;
  void queue.idle({ all: false }).then(() => {
    idle = true;
  });
  await Promise.resolve();
  assert.equal(idle, true, "no hook with a queue runs");
  assert.equal(queue.admit(hook).kind, "now");
  let allIdle = false;
  void queue.idle({ all: true }).then(() => {
    allIdle = true;
  });
  for (let i = 0; i < 5; i++) queue.release("free", 0);
  await Promise.resolve();
  assert.equal(allIdle, false);
  queue.release("h", 0);
  await Promise.resolve();
  assert.equal(allIdle, true);
});
