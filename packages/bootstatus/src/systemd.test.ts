import assert from "node:assert/strict";
import { test } from "node:test";
import type { QueryOptions, RunSystemctl } from "./systemd.js";
import { querySystemctl, systemdFailed } from "./systemd.js";

const noRetry: QueryOptions = { retry: false, deadline: undefined, now: () => 0, sleep: async () => {} };

// canonical/cloud-init tests/unittests/cmd/test_status.py TestSystemdFailed: (ActiveState, UnitFileState,
// SubState, MainPID) → failed.
const rows: [string, string, string, string, boolean][] = [
  ["activating", "enabled", "start", "123", false],
  ["active", "enabled-runtime", "exited", "0", false],
  ["active", "enabled", "exited", "0", false],
  ["active", "enabled", "running", "345", false],
  ["active", "enabled", "running", "0", false],
  ["inactive", "static", "dead", "123", false],
  ["reloading", "enabled", "start", "123", false],
  ["deactivating", "enabled-runtime", "any", "123", false],
  ["failed", "static", "failed", "0", true],
  ["activating", "linked", "start", "0", true],
  ["active", "linked-runtime", "exited", "0", true],
  ["inactive", "masked", "dead", "0", true],
  ["reloading", "masked-runtime", "start", "0", true],
  ["deactivating", "disabled", "any", "0", true],
  ["failed", "invalid", "failed", "0", true],
];
for (const [active, fileState, sub, pid, failed] of rows) {
  test(`systemdFailed() is ${failed} for ${active}/${fileState}/${sub}/MainPID=${pid}`, async () => {
    const run: RunSystemctl = async () => ({
      ok: true,
      stdout: `ActiveState=${active}\nUnitFileState=${fileState}\nSubState=${sub}\nMainPID=${pid}\n`,
      stderr: "",
    });
    assert.equal((await systemdFailed(run, noRetry)).failed, failed);
  });
}

test("systemdFailed() warns and reports no failure when systemctl fails without --wait", async () => {
  const run: RunSystemctl = async () => ({ ok: false, stdout: "", stderr: "Failed to connect to bus" });
  const verdict = await systemdFailed(run, noRetry);
  assert.equal(verdict.failed, false);
  assert.match(verdict.warning ?? "", /Error from systemctl: Failed to connect to bus/);
});

test("querySystemctl() retries every 250 ms while waiting, until success", async () => {
  let calls = 0;
  const sleeps: number[] = [];
  const run: RunSystemctl = async () => ({ ok: ++calls === 3, stdout: " X=1 \n", stderr: "" });
  const result = await querySystemctl(run, ["show-environment"], {
    retry: true,
    deadline: undefined,
    now: () => 0,
    sleep: async (ms) => void sleeps.push(ms),
  });
  assert.equal(result.stdout, "X=1");
  assert.deepEqual(sleeps, [250, 250]);
});

test("querySystemctl() stops retrying at the --timeout deadline", async () => {
  let now = 0;
  let gaveUp = 0;
  const run: RunSystemctl = async () => ({ ok: false, stdout: "", stderr: "not ready" });
  const result = await querySystemctl(run, ["show-environment"], {
    retry: true,
    deadline: 1000,
    onDeadline: () => gaveUp++,
    now: () => now,
    sleep: async (ms) => {
      now += ms;
    },
  });
  assert.equal(result.ok, false);
  assert.equal(now, 750);
  assert.equal(gaveUp, 1);
});

test("querySystemctl() does not retry a systemctl that is not on PATH, even while waiting", async () => {
  let calls = 0;
  const run: RunSystemctl = async () => {
    calls++;
    return { ok: false, stdout: "", stderr: "spawn systemctl ENOENT", missing: true };
  };
  const result = await querySystemctl(run, ["show-environment"], { ...noRetry, retry: true });
  assert.equal(result.ok, false);
  assert.equal(calls, 1);
});

test("systemdFailed() with --wait retries a failing systemctl and warns about nothing (upstream test_retry)", async () => {
  let calls = 0;
  const run: RunSystemctl = async () =>
    ++calls < 3
      ? { ok: false, stdout: "", stderr: "Message recipient disconnected from message bus without replying" }
      : {
          ok: true,
          stdout: "ActiveState=activating\nUnitFileState=enabled\nSubState=start\nMainPID=123\n",
          stderr: "",
        };
  const verdict = await systemdFailed(run, { ...noRetry, retry: true });
  assert.deepEqual(verdict, { failed: false, warning: undefined });
  assert.equal(calls, 3);
});

test("systemdFailed() without --wait asks once and warns with stderr as ProcessExecutionError shows it", async () => {
  let calls = 0;
  const run: RunSystemctl = async () => {
    calls++;
    return { ok: false, stdout: "", stderr: "Message recipient disconnected\nfrom message bus\n\n" };
  };
  const verdict = await systemdFailed(run, noRetry);
  assert.equal(calls, 1);
  assert.equal(
    verdict.warning,
    "Failed to get status from systemd. Cloud-init status may be inaccurate. Error from systemctl: " +
      "Message recipient disconnected\n        from message bus",
  );
});

test("systemdFailed() names the unit that decided a failure and the states that did", async () => {
  const run: RunSystemctl = async (args) => ({
    ok: true,
    stdout:
      args[2] === "cloud-init-network.service"
        ? "ActiveState=failed\nUnitFileState=enabled\nSubState=failed\nMainPID=0\n"
        : "ActiveState=active\nUnitFileState=enabled\nSubState=exited\nMainPID=0\n",
    stderr: "",
  });
  const verdict = await systemdFailed(run, noRetry);
  assert.deepEqual(verdict.unit, {
    name: "cloud-init-network.service",
    activeState: "failed",
    subState: "failed",
    unitFileState: "enabled",
    reason: "failed",
  });
  const disabled: RunSystemctl = async () => ({
    ok: true,
    stdout: "ActiveState=inactive\nUnitFileState=disabled\nSubState=dead\nMainPID=0\n",
    stderr: "",
  });
  const first = await systemdFailed(disabled, noRetry);
  assert.equal(first.unit?.name, "cloud-final.service");
  assert.equal(first.unit?.reason, "disabled");
});
