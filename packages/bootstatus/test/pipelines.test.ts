import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { FIXTURES, runCli } from "./support/run-cli.js";

// Issue 32, through the started CLI over the fixture trees: --allow-degraded / BOOTSTATUS_ALLOW_DEGRADED, the
// stderr summary, --quiet. stdout is compared with the fixtures' expected files, which cloud-init's own code
// printed (test/oracle), so none of this may change a byte of it.

const root = (name: string): string => path.join(FIXTURES, name, "root");
const expected = (name: string, file: string): string =>
  readFileSync(path.join(FIXTURES, name, "expected", file), "utf8");

function copyFixture(name: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), "bootstatus-"));
  cpSync(root(name), dir, { recursive: true, verbatimSymlinks: true });
  return dir;
}

/** Counts the CLI's poll dots; `reach(n)` waits until it has printed `n` of them, so a test can change the tree mid-wait. */
function dotCounter(): { onStdout(text: string): void; seen(): number; reach(dots: number): Promise<void> } {
  let seen = 0;
  const waiters: { dots: number; resolve(): void }[] = [];
  return {
    onStdout: (text) => {
      seen += text.split(".").length - 1;
      for (const w of waiters.filter((w) => seen >= w.dots)) w.resolve();
    },
    seen: () => seen,
    reach: (dots) =>
      seen >= dots ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ dots, resolve })),
  };
}

// A degraded boot (recoverable errors only): [extra args, extra env, exit code].
const degradedRows: [string[], Record<string, string>, number][] = [
  [[], {}, 2],
  [["--allow-degraded"], {}, 0],
  [[], { BOOTSTATUS_ALLOW_DEGRADED: "1" }, 0],
  [[], { BOOTSTATUS_ALLOW_DEGRADED: "0" }, 2],
  [["--allow-degraded"], { BOOTSTATUS_ALLOW_DEGRADED: "0" }, 0],
  [["--wait"], {}, 2],
  [["--wait", "--allow-degraded"], {}, 0],
  [["--wait"], { BOOTSTATUS_ALLOW_DEGRADED: "1" }, 0],
  [["--timeout", "10"], {}, 2],
  [["--timeout", "10", "--allow-degraded"], {}, 0],
  [["--timeout", "10"], { BOOTSTATUS_ALLOW_DEGRADED: "true" }, 0],
];
for (const [args, env, code] of degradedRows) {
  const how = [...args, ...Object.entries(env).map(([k, v]) => `${k}=${v}`)].join(" ") || "no option";
  test(`a degraded boot exits ${code} with ${how}, printing cloud-init's output and the summary`, async () => {
    const run = await runCli([...args, "--root", root("degraded-done")], { env });
    assert.equal(run.code, code, run.stderr);
    // Done at once, so --wait prints no dot: exactly cloud-init's bytes.
    assert.equal(run.stdout, expected("degraded-done", "tabular.txt"));
    const allowed = code === 0 ? " (degraded allowed)" : "";
    assert.match(
      run.stderr,
      new RegExp(
        `^bootstatus: cloud-init reports recoverable errors only \\(extended_status: degraded done\\), exit ${code}${allowed.replace(/[()]/g, "\\$&")}\n`,
      ),
    );
    assert.match(run.stderr, /^recoverable errors: WARNINGS 1, ERROR 2, CRITICAL 1, DEPRECATED 1$/m);
  });
}

test("--allow-degraded keeps the report: --long and json still say degraded done with every recoverable error", async () => {
  const long = await runCli(["--allow-degraded", "--long", "--root", root("degraded-done")]);
  assert.equal(long.code, 0, long.stderr);
  assert.equal(long.stdout, expected("degraded-done", "tabular-long.txt"));
  const json = await runCli(["--format", "json", "--root", root("degraded-done")], {
    env: { BOOTSTATUS_ALLOW_DEGRADED: "1" },
  });
  assert.equal(json.code, 0, json.stderr);
  assert.equal(json.stdout, expected("degraded-done", "json.json"));
});

// A boot that is running when bootstatus starts and ends degraded while it waits: [args, env, exit code].
const midWaitRows: [string[], Record<string, string>, number][] = [
  [["--wait"], {}, 2],
  [["--wait", "--allow-degraded"], {}, 0],
  [["--timeout", "20"], { BOOTSTATUS_ALLOW_DEGRADED: "1" }, 0],
];
for (const [args, env, code] of midWaitRows) {
  const how = [...args, ...Object.entries(env).map(([k, v]) => `${k}=${v}`)].join(" ");
  test(`${how} exits ${code} when a running boot ends degraded while waiting`, async (t) => {
    const dir = copyFixture("running-stage-init");
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const dots = dotCounter();
    const waiting = runCli([...args, "--root", dir], { env, onStdout: dots.onStdout });
    await Promise.race([dots.reach(2), waiting]);
    // Finish boot the way cloud-init does (atomic_helper.write_json: a temporary file renamed over the old one, so the
    // waiting reader never sees a half-written file): status.json, then result.json.
    writeAtomically(
      path.join(dir, "run/cloud-init/status.json"),
      readFileSync(path.join(root("degraded-done"), "run/cloud-init/status.json")),
    );
    // Polls that began after the write before result.json (a dot may be in the pipe, its poll before the write):
    // one that read the old status.json and then found result.json would see a clean boot (status.py's order).
    await Promise.race([dots.reach(dots.seen() + 3), waiting]);
    writeAtomically(path.join(dir, "run/cloud-init/result.json"), '{"v1": {"errors": []}}');
    const run = await waiting;
    assert.equal(run.code, code, run.stderr);
    assert.match(run.stdout, /^\.{2,}status: done\n$/);
    const allowed = code === 0 ? " \\(degraded allowed\\)" : "";
    assert.match(run.stderr, new RegExp(`degraded done\\), exit ${code}${allowed}\n`));
  });
}

test("errors still exit 1 with --allow-degraded, and the summary names each failing stage and its errors", async () => {
  // error-done is finished, so --wait returns at once; error-running (still running) would wait forever.
  const done = await runCli(["--wait", "--allow-degraded", "--root", root("error-done")]);
  assert.equal(done.code, 1, done.stderr);
  assert.equal(done.stdout, expected("error-done", "tabular.txt"));
  assert.match(done.stderr, /^failing stages \(.*\):\n {2}init:\n {4}- error1\n/m);
  for (const env of [{}, { BOOTSTATUS_ALLOW_DEGRADED: "1" }]) {
    const run = await runCli(["--allow-degraded", "--root", root("error-running")], { env });
    assert.equal(run.code, 1, run.stderr);
    assert.equal(run.stdout, expected("error-running", "tabular.txt"));
    const at = root("error-running");
    assert.equal(
      run.stderr,
      "bootstatus: cloud-init reports errors (extended_status: error - running), exit 1\n" +
        `failing stages (${at}/run/cloud-init/status.json):\n` +
        "  init:\n    - error1\n" +
        "  init-local:\n    - error2\n    - error3\n" +
        `logs to read next:\n  ${at}/var/log/cloud-init.log\n  ${at}/var/log/cloud-init-output.log\n`,
    );
  }
});

test("a systemd unit failure is named in the summary with its states and where to look", async () => {
  const run = await runCli(["--long", "--root", root("systemd-unit-failure")], {
    env: { FAKE_SYSTEMCTL_DIR: path.join(FIXTURES, "systemd-unit-failure/systemctl") },
  });
  assert.equal(run.code, 1, run.stderr);
  assert.equal(run.stdout, expected("systemd-unit-failure", "tabular-long.txt"));
  assert.match(
    run.stderr,
    /^systemd unit: cloud-config\.service failed \(ActiveState=failed, SubState=failed, UnitFileState=enabled\)\n {2}read next: systemctl status cloud-config\.service; journalctl -u cloud-config\.service$/m,
  );
  // The unit replaces cloud-init's generic message, which stdout already shows.
  assert.doesNotMatch(run.stderr, /Ensure all cloud-init services are enabled/);
});

test("a timeout still exits 3 with --allow-degraded; the summary says what it was waiting for", async (t) => {
  // A boot still running with recoverable errors so far: `degraded running`.
  const dir = copyFixture("running-stage-init");
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const status = JSON.parse(readFileSync(path.join(dir, "run/cloud-init/status.json"), "utf8"));
  status.v1["init-local"].recoverable_errors = { WARNING: ["a deprecated key", "another\nwarning"] };
  writeFileSync(path.join(dir, "run/cloud-init/status.json"), JSON.stringify(status));
  const run = await runCli(["--timeout", "0.3", "--allow-degraded", "--long", "--root", dir]);
  assert.equal(run.code, 3, run.stderr);
  assert.match(run.stdout, /^\.*status: running\nextended_status: degraded running\n/);
  assert.equal(
    run.stderr,
    "bootstatus: gave up after --timeout 0.3: cloud-init is still running " +
      "(extended_status: degraded running, detail: Running in stage: init), exit 3\n" +
      "recoverable errors: WARNING 2\n  WARNING (2):\n    - a deprecated key\n    - another warning\n" +
      `logs to read next:\n  ${dir}/var/log/cloud-init.log\n  ${dir}/var/log/cloud-init-output.log\n`,
  );
});

test("a timeout in systemctl's retries says that systemctl did not answer", async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "bootstatus-sysctl-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, "fail"), "Failed to connect to bus\n");
  // Boot is done, so only the retries of `systemctl show-environment` (dbus "not ready") can time out.
  const at = root("done-nocloud");
  const run = await runCli(["--timeout", "0.5", "--root", at], { env: { FAKE_SYSTEMCTL_DIR: dir } });
  assert.equal(run.code, 3, run.stderr);
  assert.equal(run.stdout, "status: done\n");
  assert.equal(
    run.stderr,
    "bootstatus: gave up after --timeout 0.5: systemctl did not answer in time (extended_status: done), exit 3\n" +
      `logs to read next:\n  ${at}/var/log/cloud-init.log\n  ${at}/var/log/cloud-init-output.log\n`,
  );
});

test("--quiet drops the summary only: same stdout, same exit codes, cloud-init's own warnings kept", async (t) => {
  const cases: [string, string[], number][] = [
    ["error-running", [], 1],
    ["degraded-done", [], 2],
    ["degraded-done", ["--allow-degraded"], 0],
    ["running-stage-init", ["--timeout", "0.2"], 3],
  ];
  for (const [name, args, code] of cases) {
    const run = await runCli([...args, "--quiet", "--root", root(name)]);
    assert.equal(run.code, code, `${name} ${args.join(" ")}`);
    assert.equal(run.stderr, "", `${name} ${args.join(" ")}`);
    assert.equal(run.stdout.replace(/^\.+/, ""), expected(name, "tabular.txt"));
  }
  // systemctl's warning is cloud-init's (status.py systemd_failed), not the summary: --quiet keeps it.
  const dir = mkdtempSync(path.join(tmpdir(), "bootstatus-sysctl-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, "fail"), "Failed to connect to bus\n");
  const warned = await runCli(["--quiet", "--root", root("error-running")], {
    env: { FAKE_SYSTEMCTL_DIR: dir },
  });
  assert.equal(warned.code, 1);
  assert.match(warned.stderr, /^Failed to get status from systemd\./);
  assert.doesNotMatch(warned.stderr, /bootstatus:/);
});

test("BOOTSTATUS_ALLOW_DEGRADED with a value it cannot read is a usage error, not a silent default", async () => {
  const run = await runCli(["--root", root("degraded-done")], {
    env: { BOOTSTATUS_ALLOW_DEGRADED: "maybe" },
  });
  assert.equal(run.code, 2);
  assert.equal(run.stdout, "");
  assert.match(
    run.stderr,
    /bootstatus: error: environment variable BOOTSTATUS_ALLOW_DEGRADED: invalid value 'maybe'/,
  );
});

test("the summary's paths follow BOOTSTATUS_ROOT like every other read", async () => {
  const run = await runCli([], { env: { BOOTSTATUS_ROOT: root("error-done") } });
  assert.equal(run.code, 1);
  assert.equal(run.stdout, "status: error\n");
  assert.match(run.stderr, new RegExp(`^ {2}${root("error-done")}/var/log/cloud-init-output\\.log$`, "m"));
});

function writeAtomically(file: string, data: string | Buffer): void {
  writeFileSync(`${file}.tmp`, data);
  renameSync(`${file}.tmp`, file);
}
