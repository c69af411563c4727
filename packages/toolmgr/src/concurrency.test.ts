import assert from "node:assert/strict";
import { test } from "node:test";
import { mapConcurrent } from "./concurrency.js";

test("mapConcurrent keeps the input order and bounds the calls in flight", async () => {
  let inFlight = 0;
  let most = 0;
  const out = await mapConcurrent(
    [30, 10, 20, 0, 5],
    async (ms, i) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, ms));
      inFlight--;
      return i;
    },
    { limit: 2 },
  );
  assert.deepEqual(out, [0, 1, 2, 3, 4]);
  assert.equal(most, 2);
});

test("after a failure mapConcurrent starts nothing more and rejects only once the calls in flight settled", async () => {
  const events: string[] = [];
  const run = mapConcurrent(
    ["fails", "slow", "later", "last"],
    async (name) => {
      events.push(`start ${name}`);
      if (name === "fails") throw new Error("first failure");
      await new Promise((r) => setTimeout(r, name === "slow" ? 50 : 0));
      events.push(`end ${name}`);
      return name;
    },
    { limit: 2 },
  );
  await assert.rejects(run, /^Error: first failure$/);
  events.push("rejected");
  await new Promise((r) => setTimeout(r, 100)); // anything still running would show up by now
  assert.deepEqual(events, ["start fails", "start slow", "end slow", "rejected"]);
});
