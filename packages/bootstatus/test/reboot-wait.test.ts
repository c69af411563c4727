import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { runCli } from "./support/run-cli.js";

// The reboot-aware --wait over a fake --root whose files the test changes as a machine's would change across a
// reboot: a new boot id, a new boot time, /run emptied, then the next boot's status.

const DONE = JSON.stringify({
  v1: { datasource: "DataSourceNoCloud", init: { start: 10, finished: 11 }, stage: null },
});
const DONE_WITH_ERROR = JSON.stringify({
  v1: {
    datasource: "DataSourceNoCloud",
    "modules-final": { start: 20, finished: 21, errors: ["second boot failed"] },
    stage: null,
  },
});

interface Machine {
  root: string;
  write(file: string, text: string): void;
  remove(file: string): void;
  /** Finishes the current boot with this status.json. */
  finish(status: string): void;
  /** Reboots: /run emptied, a new boot id and boot time. */
  reboot(bootId: string, btime: number): void;
}

function machine(
  t: { after(fn: () => void): void },
  options: { config: string; semTime?: number; btime?: number },
): Machine {
  const root = mkdtempSync(path.join(tmpdir(), "bootstatus-reboot-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const write = (file: string, text: string): void => {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  };
  const m: Machine = {
    root,
    write,
    remove: (file) => rmSync(path.join(root, file), { recursive: true, force: true }),
    finish: (status) => {
      write("run/cloud-init/status.json", status);
      write("run/cloud-init/result.json", "{}");
    },
    reboot: (bootId, btime) => {
      rmSync(path.join(root, "run"), { recursive: true, force: true });
      rmSync(path.join(root, "var/run"), { recursive: true, force: true });
      write("proc/stat", `cpu  1 2 3 4\nbtime ${btime}\n`);
      write("proc/sys/kernel/random/boot_id", `${bootId}\n`);
      write("run/cloud-init/enabled", "");
    },
  };
  m.reboot("6a1b0d3c-first-boot", options.btime ?? 1_000);
  write("var/lib/cloud/instance/cloud-config.txt", options.config);
  if (options.semTime !== undefined) {
    write("var/lib/cloud/instance/sem/config_power_state_change", "1\n");
    utimesSync(
      path.join(root, "var/lib/cloud/instance/sem/config_power_state_change"),
      options.semTime,
      options.semTime,
    );
  }
  return m;
}

/** Resolves once the CLI has printed `dots` poll dots. */
function afterDots(dots: number): { onStdout(text: string): void; reached: Promise<void> } {
  let seen = 0;
  let reach: () => void = () => {};
  const reached = new Promise<void>((resolve) => {
    reach = resolve;
  });
  return {
    onStdout: (text) => {
      seen += text.split(".").length - 1;
      if (seen >= dots) reach();
    },
    reached,
  };
}

const POWER_STATE = "#cloud-config\npower_state:\n  mode: reboot\n  delay: now\n";

test("done with a power_state reboot of this boot: --wait waits through the reboot for the next boot's result", async (t) => {
  const m = machine(t, { config: POWER_STATE, semTime: 2_000, btime: 1_000 });
  m.finish(DONE);
  const firstPolls = afterDots(3);
  const run = runCli(["--wait", "--timeout", "30", "--root", m.root], { onStdout: firstPolls.onStdout });
  await Promise.race([firstPolls.reached, run]); // the run ending early fails below instead of hanging
  m.reboot("9f2e4a11-second-boot", 3_000); // the module's run (2000) is now before this boot (3000)
  await new Promise((r) => setTimeout(r, 600));
  m.finish(DONE_WITH_ERROR);
  const result = await run;
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stdout, /^\.{4,}status: error\n$/);
  assert.match(result.stderr, /second boot failed/);
});

test("--wait-for-reboot=no keeps cloud-init's behaviour: done is final", async (t) => {
  const m = machine(t, { config: POWER_STATE, semTime: 2_000, btime: 1_000 });
  m.finish(DONE);
  const result = await runCli(["--wait", "--wait-for-reboot=no", "--timeout", "10", "--root", m.root]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "status: done\n");
});

test("a waiter started after the reboot does not wait for another (power_state stays in the config)", async (t) => {
  const m = machine(t, { config: POWER_STATE, semTime: 2_000, btime: 3_000 });
  m.finish(DONE);
  const result = await runCli(["--wait", "--timeout", "10", "--root", m.root]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "status: done\n");
});

test("reboot-required with package_reboot_if_required: waits; without the option: done is final", async (t) => {
  const m = machine(t, {
    config: "#cloud-config\npackage_reboot_if_required: true\npackages: [linux-image-amd64]\n",
  });
  m.finish(DONE);
  m.write("var/run/reboot-required", "*** System restart required ***\n");
  const timedOut = await runCli(["--wait", "--timeout", "1", "--root", m.root]);
  assert.equal(timedOut.code, 3);
  assert.match(timedOut.stdout, /^\.+status: done\n$/);
  assert.match(
    timedOut.stderr,
    /gave up after --timeout 1: the boot asked for a reboot, and the next boot's result did not come in time/,
  );
  const polls = afterDots(2);
  const run = runCli(["--wait", "--timeout", "30", "--root", m.root], { onStdout: polls.onStdout });
  await Promise.race([polls.reached, run]);
  m.reboot("0c0ffee0-second-boot", 5_000);
  m.finish(DONE);
  const result = await run;
  assert.equal(result.code, 0, result.stderr);
  m.write("var/lib/cloud/instance/cloud-config.txt", "#cloud-config\npackages: [linux-image-amd64]\n");
  m.write("var/run/reboot-required", "*** System restart required ***\n");
  const plain = await runCli(["--wait", "--timeout", "10", "--root", m.root]);
  assert.equal(plain.stdout, "status: done\n");
});

test("without a boot time, a power_state reboot is awaited only by a waiter that saw the boot run", async (t) => {
  const m = machine(t, { config: POWER_STATE, semTime: 2_000 });
  m.remove("proc/stat");
  // Started while cloud-init runs: it saw the boot that ran power_state, so it waits for the reboot.
  m.write(
    "run/cloud-init/status.json",
    JSON.stringify({ v1: { init: { start: 10, finished: null }, stage: "init" } }),
  );
  const polls = afterDots(2);
  const run = runCli(["--wait", "--timeout", "2", "--root", m.root], { onStdout: polls.onStdout });
  await Promise.race([polls.reached, run]);
  m.finish(DONE);
  const result = await run;
  assert.equal(result.code, 3);
  assert.match(result.stderr, /the boot asked for a reboot/);
  // Started on a finished boot: it cannot tell, so done is final.
  const late = await runCli(["--wait", "--timeout", "10", "--root", m.root]);
  assert.equal(late.code, 0);
  assert.equal(late.stdout, "status: done\n");
});
