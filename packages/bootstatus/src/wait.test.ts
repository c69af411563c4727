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

/** A machine whose boot id and pending reboot the test scripts, poll by poll. */
function fakeMachine(script: { bootIds: (string | undefined)[]; pending: boolean[] }) {
  let polls = 0;
  const asked: boolean[] = [];
  return {
    probe: {
      bootId: () => script.bootIds[Math.min(polls, script.bootIds.length - 1)],
      pending: async ({ watchedItRun }: { watchedItRun: boolean }) => {
        asked.push(watchedItRun);
        return script.pending[Math.min(asked.length - 1, script.pending.length - 1)] ?? false;
      },
    },
    poll: () => {
      polls++;
    },
    asked,
  };
}

test("waitForBoot() with a pending reboot: waits for a new boot id, then for that boot's final status", async () => {
  const clock = fakeClock();
  // Poll 0: done (boot A, reboot pending). Polls 1-2: still boot A. Poll 3: boot B, not started. Poll 4: B done.
  const machine = fakeMachine({ bootIds: ["A", "A", "A", "B", "B", "B"], pending: [true, false] });
  const seen: RunningStatus[] = ["done", "done", "not started", "done"];
  let i = 0;
  const result = await waitForBoot(status("done"), async () => status(seen[i++] ?? "done"), {
    now: clock.now,
    sleep: clock.sleep,
    deadline: undefined,
    onPoll: machine.poll,
    reboot: machine.probe,
  });
  assert.deepEqual(result, { status: status("done"), timedOut: false, waitedForReboot: true });
  assert.equal(i, 4);
  // Asked once on boot A (it did not see A run), once on boot B: seen starting, but after a reboot this waiter saw,
  // only the boot time may say power_state ran again (it runs once per instance).
  assert.deepEqual(machine.asked, [false, false]);
});

test("waitForBoot() without a readable boot id, or with no reboot pending, stops at done as cloud-init does", async () => {
  for (const machine of [
    fakeMachine({ bootIds: [undefined], pending: [true] }),
    fakeMachine({ bootIds: ["A"], pending: [false] }),
  ]) {
    const clock = fakeClock();
    const result = await waitForBoot(status("done"), async () => status("done"), {
      now: clock.now,
      sleep: clock.sleep,
      deadline: undefined,
      onPoll: machine.poll,
      reboot: machine.probe,
    });
    assert.deepEqual(result, { status: status("done"), timedOut: false, waitedForReboot: false });
    assert.deepEqual(clock.sleeps, []);
  }
});

test("waitForBoot() gives up at the deadline while the reboot has not come, saying so", async () => {
  const clock = fakeClock();
  const machine = fakeMachine({ bootIds: ["A"], pending: [true] });
  const result = await waitForBoot(status("done"), async () => status("done"), {
    now: clock.now,
    sleep: clock.sleep,
    deadline: 1000,
    onPoll: machine.poll,
    reboot: machine.probe,
  });
  assert.equal(result.timedOut, true);
  assert.equal(result.waitedForReboot, true);
  assert.equal(clock.now(), 1000);
});
