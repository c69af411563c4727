import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import {
  closeSync,
  cpSync,
  ftruncateSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { CLI, FIXTURES, runCli } from "./support/run-cli.js";

// --explain and --strict over logs Debian's cloud-init 22.4.2 wrote itself (fixtures/cloud-init-logs/make-logs.sh):
// a boot whose modules-final failed (recorded in status.json), the same boot with modules-final run again
// (canonical/cloud-init#6281: status.json says done, only the log has the FAIL), and a healthy boot.

const root = (name: string): string => path.join(FIXTURES, name, "root");

interface Diagnostics {
  stages: {
    stage: string;
    outcome: string;
    duration_seconds: number | null;
    modules: { module: string; outcome: string }[];
  }[];
  tracebacks: { stage: string | null; module: string | null; exception: string }[];
  warnings: string[];
  output_tail: string[];
  problems: string[];
}

async function diagnosticsOf(dir: string, args: string[] = []): Promise<{ code: number; d: Diagnostics }> {
  const run = await runCli(["--explain", "--format", "json", "--quiet", "--root", dir, ...args]);
  return { code: run.code, d: (JSON.parse(run.stdout) as { diagnostics: Diagnostics }).diagnostics };
}

const failed = (d: Diagnostics): string[] =>
  d.stages.flatMap((s) => s.modules.filter((m) => m.outcome === "FAIL").map((m) => `${s.stage}/${m.module}`));

function copyRoot(t: { after(fn: () => void): void }, name: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), "bootstatus-explain-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(root(name), dir, { recursive: true });
  return dir;
}

test("a failed module: stages, modules, durations, tracebacks, warnings and the output's tail", async () => {
  const { code, d } = await diagnosticsOf(root("explain-module-fails"));
  assert.equal(code, 1);
  assert.deepEqual(
    d.stages.map((s) => `${s.stage} ${s.outcome}`),
    ["init-local SUCCESS", "init-network SUCCESS", "modules-config SUCCESS", "modules-final FAIL"],
  );
  assert.ok(d.stages.every((s) => typeof s.duration_seconds === "number" && s.duration_seconds >= 0));
  assert.deepEqual(failed(d), ["modules-final/package-update-upgrade-install", "modules-final/scripts-user"]);
  assert.ok(d.stages[1]?.modules.some((m) => m.module === "users-groups" && m.outcome === "SUCCESS"));
  assert.deepEqual(d.tracebacks, [
    {
      stage: "modules-final",
      module: "package-update-upgrade-install",
      exception: "cloudinit.subp.ProcessExecutionError: Unexpected error while running command.",
    },
    {
      stage: "modules-final",
      module: "scripts-user",
      exception: "RuntimeError: Runparts: 1 failures (runcmd) in 1 attempted commands",
    },
  ]);
  assert.ok(d.warnings.some((w) => w.startsWith("Invalid cloud-config provided")));
  assert.ok(d.warnings.includes("Failed to install packages: ['bootstatus-no-such-package']"));
  assert.equal(d.output_tail.length, 20);
  assert.ok(d.output_tail.includes("runcmd is about to fail"));
  assert.match(d.output_tail.at(-1) ?? "", /^Cloud-init v\. 22\.4\.2 finished at /);
  assert.deepEqual(d.problems, []);
});

test("#6281: status.json says done after a second modules-final, the log keeps the FAIL; --strict makes it an error", async () => {
  const plain = await runCli(["--long", "--root", root("explain-final-rerun")]);
  assert.equal(plain.code, 0);
  assert.match(plain.stdout, /^status: done\n/);
  const { code, d } = await diagnosticsOf(root("explain-final-rerun"));
  assert.equal(code, 0);
  assert.deepEqual(
    d.stages.map((s) => `${s.stage} ${s.outcome}`),
    [
      "init-local SUCCESS",
      "init-network SUCCESS",
      "modules-config SUCCESS",
      "modules-final FAIL",
      "modules-final SUCCESS",
    ],
  );
  assert.deepEqual(failed(d), ["modules-final/package-update-upgrade-install", "modules-final/scripts-user"]);
  const strict = await runCli(["--explain", "--strict", "--long", "--root", root("explain-final-rerun")]);
  assert.equal(strict.code, 1);
  assert.match(strict.stdout, /^status: error\nextended_status: error - done\n/);
  assert.match(
    strict.stdout,
    /\t- \/var\/log\/cloud-init\.log: module package-update-upgrade-install failed in stage modules-final \(--strict\)\n/,
  );
  assert.match(
    strict.stdout,
    /\t- \/var\/log\/cloud-init\.log: module scripts-user failed in stage modules-final/,
  );
  assert.match(strict.stderr, /cloud-init reports errors \(extended_status: error - done\), exit 1/);
  const json = await runCli([
    "--explain",
    "--strict",
    "--format",
    "json",
    "--quiet",
    "--root",
    root("explain-final-rerun"),
  ]);
  assert.equal(json.code, 1);
  const report = JSON.parse(json.stdout) as { status: { status: string }; errors: { message: string }[] };
  assert.equal(report.status.status, "error");
  assert.equal(report.errors.length, 2);
});

test("a healthy boot: every stage SUCCESS, --strict exits 0", async () => {
  const { code, d } = await diagnosticsOf(root("explain-healthy"), ["--strict"]);
  assert.equal(code, 0);
  assert.deepEqual(failed(d), []);
  assert.ok(d.stages.length === 4 && d.stages.every((s) => s.outcome === "SUCCESS"));
  assert.deepEqual(d.tracebacks, []);
});

test("--explain prints after the usual output, which stays as it was byte for byte", async () => {
  for (const name of ["explain-module-fails", "explain-final-rerun", "explain-healthy"]) {
    for (const args of [["--long"], []]) {
      const plain = await runCli([...args, "--root", root(name)]);
      const explained = await runCli([...args, "--explain", "--root", root(name)]);
      assert.equal(explained.code, plain.code);
      assert.ok(explained.stdout.startsWith(plain.stdout), name);
      assert.match(
        explained.stdout.slice(plain.stdout.length),
        /^explain \(\/var\/log\/cloud-init\.log, last boot\):\n/,
      );
    }
  }
  const text = await runCli(["--explain", "--root", root("explain-module-fails")]);
  assert.match(
    text.stdout,
    /\n {2}modules-final: FAIL in [\d.]+ s\n {4}package-update-upgrade-install: FAIL in [\d.]+ s\n/,
  );
  assert.match(
    text.stdout,
    /\ntracebacks:\n {2}modules-final\/package-update-upgrade-install: cloudinit\.subp\.ProcessExecutionError/,
  );
});

test("reports with diagnostics validate, as do those without; the YAML carries them too", async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "bootstatus-explain-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const extra of [["--explain"], []]) {
    const run = await runCli([
      ...extra,
      "--format",
      "json",
      "--quiet",
      "--root",
      root("explain-module-fails"),
    ]);
    const file = path.join(dir, "report.json");
    writeFileSync(file, run.stdout);
    const check = await runCli(["validate", file]);
    assert.equal(check.code, 0, check.stdout);
  }
  const bad = JSON.parse(
    (await runCli(["--explain", "--format", "json", "--quiet", "--root", root("explain-module-fails")]))
      .stdout,
  ) as { diagnostics: Diagnostics & { extra?: number } };
  bad.diagnostics.stages[0] = { ...bad.diagnostics.stages[0], outcome: "MAYBE" } as Diagnostics["stages"][0];
  const invalid = await runCli(["validate", "-"], { input: JSON.stringify(bad) });
  assert.equal(invalid.code, 1);
  assert.match(invalid.stdout, /<stdin>: \/diagnostics\/stages\/0\/outcome: must be one of "SUCCESS"/);
  const yaml = await runCli([
    "--explain",
    "--format",
    "yaml",
    "--quiet",
    "--root",
    root("explain-module-fails"),
  ]);
  assert.match(yaml.stdout, /\ndiagnostics:\n {2}stages:\n {4}- stage: init-local\n/);
});

test("--explain is refused with cloud-init-json and prometheus, --strict without --explain", async () => {
  for (const format of ["cloud-init-json", "prometheus"]) {
    const run = await runCli(["--explain", "--format", format, "--root", root("explain-healthy")]);
    assert.equal(run.code, 2);
    assert.match(
      run.stderr,
      new RegExp(`argument --explain: works with --format tabular, json or yaml, not '${format}'`),
    );
  }
  assert.equal((await runCli(["--strict", "--root", root("explain-healthy")])).code, 2);
});

test("missing logs are named, not a crash", async (t) => {
  const dir = copyRoot(t, "explain-healthy");
  rmSync(path.join(dir, "var/log"), { recursive: true });
  const { code, d } = await diagnosticsOf(dir, ["--strict"]);
  assert.equal(code, 0);
  assert.deepEqual(d.stages, []);
  assert.deepEqual(d.problems, [
    "/var/log/cloud-init.log: not found",
    "/var/log/cloud-init-output.log: not found",
  ]);
});

test("a rotated log: the boot's start in cloud-init.log.1 is read too", async (t) => {
  const whole = await diagnosticsOf(root("explain-final-rerun"));
  const dir = copyRoot(t, "explain-final-rerun");
  const log = readFileSync(path.join(dir, "var/log/cloud-init.log"), "utf8");
  const cut = log.indexOf("\n", log.indexOf("running 'modules:config'")) + 1;
  writeFileSync(path.join(dir, "var/log/cloud-init.log.1"), log.slice(0, cut));
  writeFileSync(path.join(dir, "var/log/cloud-init.log"), log.slice(cut));
  const { d } = await diagnosticsOf(dir);
  assert.deepEqual(d.stages, whole.d.stages);
  assert.deepEqual(d.problems, [
    "/var/log/cloud-init.log: the boot starts in /var/log/cloud-init.log.1 (rotated), read too",
  ]);
});

test("a 300 MiB log is read from its end within a 48 MiB heap", async (t) => {
  const dir = copyRoot(t, "explain-module-fails");
  const file = path.join(dir, "var/log/cloud-init.log");
  const log = readFileSync(file);
  // 300 MiB of a sparse hole (no disk), then the real log at its end.
  const fd = openSync(file, "w");
  ftruncateSync(fd, 300 * 1024 * 1024);
  writeSync(fd, log, 0, log.length, 300 * 1024 * 1024);
  closeSync(fd);
  const child = spawn(
    process.execPath,
    ["--max-old-space-size=48", CLI, "--explain", "--format", "json", "--quiet", "--root", dir],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  t.after(() => child.kill("SIGKILL"));
  let stdout = "";
  child.stdout.on("data", (c: Buffer) => {
    stdout += c.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  assert.equal(code, 1);
  const d = (JSON.parse(stdout) as { diagnostics: Diagnostics }).diagnostics;
  assert.deepEqual(failed(d), ["modules-final/package-update-upgrade-install", "modules-final/scripts-user"]);
  assert.deepEqual(d.problems, ["/var/log/cloud-init.log: only its last 8388608 bytes were read"]);
});

test("malformed logs (binary, no newline, a FIFO, a directory) never crash it", async (t) => {
  const dir = copyRoot(t, "explain-healthy");
  const log = path.join(dir, "var/log/cloud-init.log");
  const output = path.join(dir, "var/log/cloud-init-output.log");
  const bytes = Buffer.alloc(200_000);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) % 256;
  writeFileSync(log, bytes);
  writeFileSync(output, "x".repeat(100_000));
  let { code, d } = await diagnosticsOf(dir);
  assert.equal(code, 0);
  assert.deepEqual(d.stages, []);
  assert.equal(d.output_tail.length, 1);
  // A log of events without a banner, a finish without a start, a traceback without a record.
  writeFileSync(
    log,
    "Traceback (most recent call last):\nValueError: x\n" +
      "2026-01-01 00:00:00,000 - handlers.py[DEBUG]: finish: modules-final/config-x: FAIL: y\n" +
      "2026-01-01 00:00:00,000 - handlers.py[DEBUG]: start: modules-final/config-y: z\n",
  );
  ({ code, d } = await diagnosticsOf(dir));
  assert.equal(code, 0);
  rmSync(log);
  assert.equal(spawnSync("mkfifo", [log]).status, 0);
  rmSync(output);
  mkdirSync(output);
  ({ code, d } = await diagnosticsOf(dir));
  assert.equal(code, 0);
  assert.deepEqual(d.problems, [
    "/var/log/cloud-init.log: it is a FIFO (named pipe), not a regular file",
    "/var/log/cloud-init-output.log: it is a directory, not a regular file",
  ]);
});

test("a log with 50,000 WARNING lines keeps the last 200 and says how many were left out", async (t) => {
  const dir = copyRoot(t, "explain-healthy");
  const file = path.join(dir, "var/log/cloud-init.log");
  const lines = Array.from(
    { length: 50_000 },
    (_, i) =>
      `2026-11-28 08:43:40,${String(i % 1000).padStart(3, "0")} - util.py[WARNING]: warning number ${i}`,
  );
  writeFileSync(file, `${readFileSync(file, "utf8")}${lines.join("\n")}\n`);
  const { d } = await diagnosticsOf(dir);
  assert.equal(d.warnings.length, 200);
  assert.equal(d.warnings.at(-1), "warning number 49999");
  assert.deepEqual(d.problems, [
    "/var/log/cloud-init.log: 49800 earlier WARNING lines left out (the last 200 kept)",
  ]);
});
