import assert from "node:assert/strict";
import { test } from "node:test";
import { failedModules, parseCloudInitLog } from "./cloud-init-log.js";

// Lines as later releases log them (cloudinit/config/modules.py 24.x+: `Failed to run module %s`; the
// `start:` event of a stage logged after the banner), which Debian's 22.4 cannot produce for a fixture.
const LATER = [
  "2026-03-13 18:46:24,000 - log_util.py[DEBUG]: Cloud-init v. 26.2 running 'modules:final' at Fri, 13 Mar 2026 18:46:24 +0000. Up 12.50 seconds.",
  "2026-03-13 18:46:24,010 - handlers.py[DEBUG]: start: modules-final: running modules for final",
  "2026-03-13 18:46:24,100 - handlers.py[DEBUG]: start: modules-final/config-package_update_upgrade_install: running config-package_update_upgrade_install with frequency once-per-instance",
  "2026-03-13 18:46:30,600 - handlers.py[DEBUG]: finish: modules-final/config-package_update_upgrade_install: FAIL: running config-package_update_upgrade_install with frequency once-per-instance",
  "2026-03-13 18:46:30,601 - log_util.py[WARNING]: Failed to run module package_update_upgrade_install (<module 'cloudinit.config.cc_package_update_upgrade_install'>)",
  "2026-03-13 18:46:30,601 - log_util.py[DEBUG]: Failed to run module package_update_upgrade_install",
  "Traceback (most recent call last):",
  '  File "/usr/lib/python3/dist-packages/cloudinit/subp.py", line 291, in subp',
  "    raise ProcessExecutionError(",
  "cloudinit.subp.ProcessExecutionError: Unexpected error while running command.",
  "Command: ['eatmydata', 'apt-get', 'install', 'nope']",
  "2026-03-13 18:46:31,000 - handlers.py[DEBUG]: finish: modules-final: FAIL: running modules for final",
].join("\n");

test("a later release's log: banner and start event are one stage, `Failed to run module` names the module", () => {
  const found = parseCloudInitLog(LATER);
  assert.equal(found.stages.length, 1);
  assert.equal(found.stages[0]?.outcome, "FAIL");
  assert.equal(found.stages[0]?.duration_seconds, 6.99); // from the start event, more precise than the banner
  assert.deepEqual(found.stages[0]?.modules, [
    {
      module: "package_update_upgrade_install",
      outcome: "FAIL",
      duration_seconds: 6.5,
      message: "running config-package_update_upgrade_install with frequency once-per-instance",
    },
  ]);
  assert.deepEqual(failedModules(found), ["modules-final/package_update_upgrade_install"]);
  assert.deepEqual(found.tracebacks, [
    {
      stage: "modules-final",
      module: "package_update_upgrade_install",
      exception: "cloudinit.subp.ProcessExecutionError: Unexpected error while running command.",
    },
  ]);
  assert.equal(found.warnings.length, 1);
});

test("only the last boot counts; a module failure line without events still names the module", () => {
  const older =
    "2026-03-12 00:00:00,000 - util.py[DEBUG]: Cloud-init v. 26.2 running 'init-local' at x. Up 1 seconds.\n" +
    "2026-03-12 00:00:01,000 - util.py[WARNING]: Failed to run module old_module\n";
  const newer =
    "2026-03-13 00:00:00,000 - util.py[DEBUG]: Cloud-init v. 26.2 running 'init-local' at x. Up 1 seconds.\n" +
    "2026-03-13 00:00:01,000 - util.py[DEBUG]: Cloud-init v. 26.2 running 'init' at x. Up 2 seconds.\n" +
    "2026-03-13 00:00:02,000 - util.py[WARNING]: Running module ssh (<module 'cloudinit.config.cc_ssh'>) failed\n";
  const found = parseCloudInitLog(older + newer);
  assert.deepEqual(
    found.stages.map((s) => s.stage),
    ["init-local", "init-network"],
  );
  assert.deepEqual(failedModules(found), ["init-network/ssh"]);
});

test("125,000 lines of noise and a traceback without a record parse without trouble", () => {
  const noise = Array.from(
    { length: 125_000 },
    (_, i) => `garbage ${i} [WARNING]: ${"x".repeat(i % 50)}`,
  ).join("\n");
  const found = parseCloudInitLog(`Traceback (most recent call last):\nValueError: x\n${noise}`);
  assert.deepEqual(found, { stages: [], tracebacks: [], warnings: [] });
});

test("a finish logged before its start (the clock set back mid-boot) has no duration, not a negative one", () => {
  // Found by test/outputs-fuzz.test.ts: a negative duration_seconds failed report v1's own schema (minimum 0).
  const found = parseCloudInitLog(
    [
      "2026-03-13 18:46:30,000 - util.py[DEBUG]: Cloud-init v. 26.2 running 'modules:final' at x. Up 12.50 seconds.",
      "2026-03-13 18:46:30,100 - handlers.py[DEBUG]: start: modules-final/config-ntp: running config-ntp",
      "2026-03-13 18:46:20,000 - handlers.py[DEBUG]: finish: modules-final/config-ntp: SUCCESS: config-ntp ran",
      "2026-03-13 18:46:21,000 - handlers.py[DEBUG]: finish: modules-final: SUCCESS: running modules for final",
    ].join("\n"),
  );
  assert.equal(found.stages[0]?.outcome, "SUCCESS");
  assert.equal(found.stages[0]?.duration_seconds, null);
  assert.equal(found.stages[0]?.modules[0]?.duration_seconds, null);
});
