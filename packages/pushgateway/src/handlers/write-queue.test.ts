import assert from "node:assert/strict";
import { test } from "node:test";
import { WriteQueue } from "./write-queue.js";

/** A queue whose slices run only when the test says, on a clock the jobs advance. */
function manualQueue(sliceMs = 2) {
  let now = 0;
  const drains: (() => void)[] = [];
  const queue = new WriteQueue({ sliceMs, clock: () => now, defer: (drain) => drains.push(drain) });
  return {
    queue,
    advance: (ms: number) => {
      now += ms;
    },
    /** Runs the slice scheduled first; whether there was one. */
    slice: () => {
      const drain = drains.shift();
      drain?.();
      return drain !== undefined;
    },
    scheduled: () => drains.length,
  };
}

test("WriteQueue starts nothing when a write is queued; the slice after the poll runs them in order", async () => {
  const { queue, slice, scheduled } = manualQueue();
  const ran: number[] = [];
  const answers = [1, 2, 3].map((n) =>
    queue.run(() => {
      ran.push(n);
      return n * 10;
    }),
  );
  assert.deepEqual(ran, []);
  assert.equal(scheduled(), 1, "one slice scheduled for any number of writes queued in one poll");
  assert.equal(queue.pending, 3);
  slice();
  assert.deepEqual(ran, [1, 2, 3]);
  assert.deepEqual(await Promise.all(answers), [10, 20, 30]);
  assert.equal(scheduled(), 0);
});

test("WriteQueue ends a slice once its time is up and runs the rest in the next one, in order", () => {
  const { queue, slice, advance, scheduled } = manualQueue(2);
  const ran: number[] = [];
  for (const n of [1, 2, 3, 4, 5]) {
    void queue.run(() => {
      ran.push(n);
      advance(1);
    });
  }
  slice();
  assert.deepEqual(ran, [1, 2], "2 ms of 1 ms writes, then back to the poll");
  assert.equal(scheduled(), 1);
  void queue.run(() => ran.push(6));
  assert.equal(scheduled(), 1, "a write queued meanwhile joins the slice already scheduled");
  slice();
  slice();
  assert.deepEqual(ran, [1, 2, 3, 4, 5, 6]);
  assert.equal(slice(), false);
});

test("WriteQueue runs at least one write per slice, however long it takes", () => {
  const { queue, slice, advance } = manualQueue(2);
  const ran: number[] = [];
  void queue.run(() => {
    ran.push(1);
    advance(50);
  });
  void queue.run(() => ran.push(2));
  slice();
  assert.deepEqual(ran, [1]);
  slice();
  assert.deepEqual(ran, [1, 2]);
});

test("WriteQueue does not hold the next write while one waits (a shared store's round trip)", async () => {
  const { queue, slice } = manualQueue();
  const ran: string[] = [];
  let confirm: (v: string) => void = () => {};
  const first = queue.run(() => {
    ran.push("first submitted");
    return new Promise<string>((resolve) => {
      confirm = resolve;
    });
  });
  const second = queue.run(() => {
    ran.push("second submitted");
    return "second";
  });
  slice();
  assert.deepEqual(ran, ["first submitted", "second submitted"]);
  assert.equal(await second, "second");
  confirm("first");
  assert.equal(await first, "first");
});

test("WriteQueue: a write that throws fails its own answer only", async () => {
  const { queue, slice } = manualQueue();
  const failed = queue.run(() => {
    throw new Error("bad write");
  });
  const fine = queue.run(() => "fine");
  slice();
  await assert.rejects(failed, /bad write/);
  assert.equal(await fine, "fine");
});

test("WriteQueue with node's own scheduling: the event loop comes round between two slices", async () => {
  // The real defer (setImmediate) and clock; writes of 3 ms each against slices of 2 ms, so each slice is one write.
  // Queued from a timer callback, with another timer of 1 ms set then: without slices the three writes would run in
  // one go before the loop came back to its timers.
  const queue = new WriteQueue();
  const events: string[] = [];
  const busy = (ms: number) => {
    const end = performance.now() + ms;
    while (performance.now() < end) {}
  };
  const done = await new Promise<Promise<unknown>[]>((resolve) =>
    setTimeout(() => {
      const writes = [1, 2, 3].map((n) =>
        queue.run(() => {
          events.push(`write ${n}`);
          busy(3);
        }),
      );
      const timer = new Promise<void>((timerDone) =>
        setTimeout(() => {
          events.push("timer");
          timerDone();
        }, 1),
      );
      resolve([...writes, timer]);
    }, 0),
  );
  await Promise.all(done);
  assert.deepEqual(events, ["write 1", "timer", "write 2", "write 3"]);
});
