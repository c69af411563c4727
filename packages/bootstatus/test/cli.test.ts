import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { CLI, FIXTURES, runCli } from "./support/run-cli.js";

function copyFixture(name: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), "bootstatus-"));
  cpSync(path.join(FIXTURES, name, "root"), dir, { recursive: true, verbatimSymlinks: true });
  return dir;
}

test("bootstatus --wait prints a dot per poll and the final status once cloud-init is done", async (t) => {
  const root = copyFixture("running-stage-init");
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const done = readFileSync(path.join(FIXTURES, "done-nocloud/root/run/cloud-init/status.json"), "utf8");
  // Once it has polled twice, finish boot the way cloud-init does: status.json, then result.json.
  let dots = 0;
  let finish: () => void = () => {};
  const polled = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const waiting = runCli(["--wait", "--root", root], {
    onStdout: (text) => {
      dots += text.split(".").length - 1;
      if (dots >= 2) finish();
    },
  });
  // If the CLI ends before polling twice (it cannot, unless broken), stop waiting and let the asserts fail.
  await Promise.race([polled, waiting]);
  writeFileSync(path.join(root, "run/cloud-init/status.json"), done);
  writeFileSync(path.join(root, "run/cloud-init/result.json"), '{"v1": {"errors": []}}');
  const run = await waiting;
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^\.{2,}status: done\n$/);
});

test("bootstatus --wait in json prints no dots and exits 1 when boot ends in error", async (t) => {
  const root = copyFixture("running-stage-init");
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const failed = readFileSync(path.join(FIXTURES, "error-running/root/run/cloud-init/status.json"), "utf8");
  const waiting = runCli(["--wait", "--format", "json", "--root", root]);
  // json prints nothing while waiting, so there is nothing to synchronise on: give it a moment to poll.
  await new Promise((r) => setTimeout(r, 600));
  writeFileSync(path.join(root, "run/cloud-init/status.json"), failed);
  writeFileSync(path.join(root, "run/cloud-init/result.json"), '{"v1": {"errors": ["error1"]}}');
  const run = await waiting;
  assert.equal(run.code, 1, run.stderr);
  assert.equal(JSON.parse(run.stdout).status.extended_status, "error - done");
});

test("bootstatus --timeout gives up, prints the current report and exits 3", async () => {
  const root = path.join(FIXTURES, "running-stage-init/root");
  const run = await runCli(["--wait", "--timeout", "0.6", "--long", "--root", root]);
  assert.equal(run.code, 3, run.stderr);
  // Dots only if it got to poll before the deadline (a loaded machine may not).
  assert.match(run.stdout, /^\.*status: running\nextended_status: running\n/);
});

test("bootstatus --timeout also bounds systemctl retries", async () => {
  const root = path.join(FIXTURES, "done-nocloud/root");
  const dir = mkdtempSync(path.join(tmpdir(), "bootstatus-sysctl-"));
  writeFileSync(path.join(dir, "fail"), "Failed to connect to bus\n");
  try {
    const run = await runCli(["--timeout", "0.5", "--root", root], { env: { FAKE_SYSTEMCTL_DIR: dir } });
    assert.equal(run.code, 3, run.stderr);
    // Boot is done, so only the systemctl retries (show-environment, dbus "not ready") can have timed out.
    assert.equal(run.stdout, "status: done\n");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("BOOTSTATUS_ROOT selects the root when --root is absent", async () => {
  const run = await runCli([], { env: { BOOTSTATUS_ROOT: path.join(FIXTURES, "error-running/root") } });
  assert.equal(run.code, 1);
  assert.equal(run.stdout, "status: error\n");
});

test("a usage error exits 2 with the usage and the problem on stderr, nothing on stdout", async () => {
  const run = await runCli(["--format", "xml"]);
  assert.equal(run.code, 2);
  assert.equal(run.stdout, "");
  assert.match(run.stderr, /^usage: bootstatus /);
  assert.match(run.stderr, /bootstatus: error: argument --format: invalid choice: 'xml'/);
});

test("--help and --version print to stdout and exit 0", async () => {
  const help = await runCli(["--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--timeout SECONDS/);
  assert.match(help.stdout, /--allow-degraded .*BOOTSTATUS_ALLOW_DEGRADED=1/);
  assert.match(help.stdout, /--quiet /);
  const version = await runCli(["--version"]);
  assert.equal(version.code, 0);
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
  assert.equal(version.stdout, `bootstatus ${pkg.version}\n`);
});

test("the committed bin runs the bundle, which finds the shipped schema", async () => {
  const bin = new URL("../../bin/bootstatus.js", import.meta.url).pathname;
  const root = path.join(FIXTURES, "degraded-done/root");
  const status = await runCli(["--long", "--root", root], { script: bin });
  assert.equal(status.code, 2, status.stderr);
  assert.equal(
    status.stdout,
    readFileSync(path.join(FIXTURES, "degraded-done/expected/tabular-long.txt"), "utf8"),
  );
  const yaml = await runCli(["--format", "yaml", "--root", root], { script: bin });
  assert.equal(yaml.stdout, readFileSync(path.join(FIXTURES, "degraded-done/expected/yaml.yaml"), "utf8"));
  const schema = await runCli(["schema"], { script: bin });
  assert.equal(schema.code, 0, schema.stderr);
  assert.match(schema.stdout, /"\$id"/);
});

test("a --root that is not a directory is an error, not an empty system", async () => {
  const run = await runCli(["--root", path.join(FIXTURES, "no-such-root")]);
  assert.equal(run.code, 1);
  assert.equal(run.stdout, "");
  assert.match(run.stderr, /Cannot read the state under ".*no-such-root": not a directory/);
});

test("DEBUG_PROC_CMDLINE replaces the kernel command line, as in cloud-init", async () => {
  const root = path.join(FIXTURES, "disabled-by-generator/root");
  const run = await runCli(["--long", "--root", root], {
    env: { DEBUG_PROC_CMDLINE: "ro cloud-init=enabled" },
  });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^boot_status_code: enabled-by-kernel-command-line$/m);
});

test("a reader that goes away (| head -1) ends the output quietly; the exit code stays the status's", async () => {
  const child = spawn(
    process.execPath,
    [CLI, "--long", "--quiet", "--root", path.join(FIXTURES, "degraded-done/root")],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  child.stdout.destroy();
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  assert.equal(code, 2);
  assert.equal(stderr, "");
});
