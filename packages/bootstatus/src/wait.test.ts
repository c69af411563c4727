import assert from "node:assert/strict";
import { test } from "node:test";
import type { BootStatus, RunningStatus } from "./boot-status.js";
import { waitForBoot } from "./wait.js";

function status(running: RunningStatus): BootStatus {
  return {
    running,
    condition: "healthy",
    status: running,
    extendedStatus: running,
    bootStatusCode: "enabled-by-generator",
    detail: "x",
    errors: [],
    stageErrors: [],
    problems: [],
    failedUnit: undefined,
    recoverableErrors: [],
    latestEvent: 0,
    lastUpdate: "",
    datasource: "",
    v1: {},
    warnings: [],
  };
}

function fakeClock() {
  let now = 0;
  const sleeps: number[] = [];
  return {
    now: () => now,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
    },
    sleeps,
  };
}

test("waitForBoot() polls every 250 ms until done, one poll callback per re-read", async () => {
  const clock = fakeClock();
  const sequence: RunningStatus[] = ["running", "running", "done"];
  let polls = 0;
  const result = await waitForBoot(status("not started"), async () => status(sequence.shift() ?? "done"), {
    ...clock,
    deadline: undefined,
    onPoll: () => polls++,
  });
  assert.equal(result.status.running, "done");
  assert.equal(result.timedOut, false);
  assert.equal(polls, 3);
  assert.deepEqual(clock.sleeps, [250, 250]);
});

test("waitForBoot() gives up at the deadline with the current status", async () => {
  const clock = fakeClock();
  const result = await waitForBoot(status("running"), async () => status("running"), {
    ...clock,
    deadline: 600,
    onPoll: () => {},
  });
  assert.equal(result.timedOut, true);
  assert.equal(result.status.running, "running");
  assert.deepEqual(clock.sleeps, [250, 250, 100]);
});

test("waitForBoot() returns at once when cloud-init is disabled", async () => {
  const clock = fakeClock();
  const result = await waitForBoot(status("disabled"), async () => assert.fail("must not re-read"), {
    ...clock,
    deadline: undefined,
    onPoll: () => assert.fail("must not poll"),
  });
  assert.equal(result.status.running, "disabled");
});
