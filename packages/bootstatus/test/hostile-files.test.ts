import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import {
  closeSync,
  ftruncateSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { runCli } from "./support/run-cli.js";

// A hostile or broken state tree: status.json (or a config file) that is not a regular file, is huge, grows
// while read, or holds 125,000 errors. Nothing may block, crash or spend memory before refusing.

function tree(t: { after(fn: () => void): void }): { root: string; runDir: string } {
  const root = mkdtempSync(path.join(tmpdir(), "bootstatus-hostile-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const runDir = path.join(root, "run/cloud-init");
  mkdirSync(runDir, { recursive: true });
  mkdirSync(path.join(root, "etc/cloud"), { recursive: true });
  writeFileSync(path.join(runDir, "enabled"), "");
  return { root, runDir };
}

test("status.json a FIFO: --wait --timeout 3 exits 3 after the timeout, naming the path and its type", async (t) => {
  const { root, runDir } = tree(t);
  const made = spawnSync("mkfifo", [path.join(runDir, "status.json")]);
  assert.equal(made.status, 0, String(made.stderr));
  const started = Date.now();
  const run = await runCli(["--wait", "--timeout", "3", "--root", root]);
  const elapsed = Date.now() - started;
  assert.equal(run.code, 3, run.stderr);
  assert.ok(elapsed >= 3000, `gave up after ${elapsed} ms`);
  assert.match(run.stdout, /status: error\n$/);
  assert.match(
    run.stderr,
    /Cannot read \/run\/cloud-init\/status\.json: it is a FIFO \(named pipe\), not a regular file/,
  );
});

test("status.json a socket: refused as a socket, exit 1", async (t) => {
  const { root, runDir } = tree(t);
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(path.join(runDir, "status.json"), resolve));
  t.after(() => server.close());
  const run = await runCli(["--long", "--root", root]);
  assert.equal(run.code, 1);
  assert.match(
    run.stdout,
    /\t- Cannot read \/run\/cloud-init\/status\.json: it is a socket, not a regular file\n/,
  );
});

test("status.json a directory: refused as a directory, exit 1", async (t) => {
  const { root, runDir } = tree(t);
  mkdirSync(path.join(runDir, "status.json"));
  const run = await runCli(["--long", "--root", root]);
  assert.equal(run.code, 1);
  assert.match(run.stdout, /\t- Cannot read \/run\/cloud-init\/status\.json: it is a directory\n/);
});

test("status.json a character device: refused by type (mknod needs root)", {
  skip: process.getuid?.() !== 0 && "not root: cannot mknod",
}, async (t) => {
  const { root, runDir } = tree(t);
  const made = spawnSync("mknod", [path.join(runDir, "status.json"), "c", "1", "5"]); // /dev/zero's numbers
  assert.equal(made.status, 0, String(made.stderr));
  const run = await runCli(["--long", "--root", root]);
  assert.equal(run.code, 1);
  assert.match(run.stdout, /status\.json: it is a character device, not a regular file\n/);
});

test("a config file that is a FIFO is ignored with a warning naming it, not waited on", async (t) => {
  const { root, runDir } = tree(t);
  writeFileSync(path.join(runDir, "status.json"), '{"v1": {"init": {"start": 1, "finished": 2}}}');
  writeFileSync(path.join(runDir, "result.json"), "{}");
  spawnSync("mkfifo", [path.join(root, "etc/cloud/cloud.cfg")]);
  spawnSync("mkfifo", [path.join(root, "proc-cmdline")]);
  mkdirSync(path.join(root, "proc"));
  symlinkSync("/proc-cmdline", path.join(root, "proc/cmdline"));
  const run = await runCli(["--root", root]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, "status: done\n");
  assert.match(
    run.stderr,
    /bootstatus: ignoring \S+\/etc\/cloud\/cloud\.cfg: it is a FIFO \(named pipe\), not a regular file\n/,
  );
  assert.match(run.stderr, /bootstatus: ignoring \S+\/proc-cmdline: it is a FIFO/);
});

test("a status.json over the size limit is refused before it is read, naming the limit", async (t) => {
  const { root, runDir } = tree(t);
  // Sparse: 300 MiB of NULs that take no disk.
  const fd = openSync(path.join(runDir, "status.json"), "w");
  ftruncateSync(fd, 300 * 1024 * 1024);
  closeSync(fd);
  const run = await runCli(["--long", "--root", root]);
  assert.equal(run.code, 1);
  assert.match(
    run.stdout,
    /status\.json: it is larger than 268435456 bytes, bootstatus's limit for one state file\n/,
  );
});

test("a status.json that grows while read gives a report, never a hang", async (t) => {
  const { root, runDir } = tree(t);
  const file = path.join(runDir, "status.json");
  writeFileSync(file, '{"v1": {"init": {"start": 1, "errors": [');
  const writer = spawn(process.execPath, [
    "-e",
    // Bounded (30 s, its parent gone) like every writer a test leaves running: an orphan would fill the disk.
    `const fs=require("node:fs");const p=process.ppid,end=Date.now()+30000;` +
      `const t=setInterval(()=>{if(Date.now()>end||process.ppid!==p)clearInterval(t);` +
      `else fs.appendFileSync(${JSON.stringify(file)},'"e",'.repeat(1000))},1)`,
  ]);
  // Stopped before the tree is removed: a writer that recreates the file made the removal fail.
  const exited = new Promise((resolve) => writer.once("exit", resolve));
  try {
    const run = await runCli(["--long", "--root", root]);
    assert.equal(run.code, 1);
    assert.match(run.stdout, /status\.json: not valid JSON/);
  } finally {
    writer.kill("SIGKILL");
    await exited;
  }
});

test("a stage with 125,000 errors prints every one in each format", async (t) => {
  const { root, runDir } = tree(t);
  const errors = Array.from({ length: 125_000 }, (_, i) => `e${i}`);
  writeFileSync(
    path.join(runDir, "status.json"),
    JSON.stringify({
      v1: {
        "modules-final": {
          start: 1,
          finished: 2,
          errors,
          recoverable_errors: { WARNING: errors.map((e) => `w${e}`) },
        },
      },
    }),
  );
  writeFileSync(path.join(runDir, "result.json"), "{}");
  const long = await runCli(["--long", "--root", root]);
  assert.equal(long.code, 1, long.stderr.slice(0, 500));
  const lines = long.stdout.split("\n");
  assert.equal(lines.filter((l) => /^\t- e\d+$/.test(l)).length, 125_000);
  assert.equal(lines.filter((l) => /^\t- we\d+$/.test(l)).length, 125_000);
  assert.equal(lines.at(-2), "\t- we124999");
  assert.match(long.stderr, /^ {4}- e124999$/m);
  for (const format of ["json", "cloud-init-json", "yaml", "prometheus"]) {
    const run = await runCli(["--format", format, "--root", root, "--quiet"]);
    assert.equal(run.code, 1, `${format}: ${run.stderr.slice(0, 500)}`);
  }
  const json = await runCli(["--format", "json", "--root", root, "--quiet"]);
  assert.equal((JSON.parse(json.stdout) as { errors: unknown[] }).errors.length, 125_000);
});

test("status.json nested 200,000 levels deep is an error report, not a stack overflow", async (t) => {
  const { root, runDir } = tree(t);
  writeFileSync(
    path.join(runDir, "status.json"),
    `{"v1": {"x": ${"[".repeat(200_000)}${"]".repeat(200_000)}}}`,
  );
  const run = await runCli(["--long", "--root", root]);
  assert.equal(run.code, 1, run.stderr.slice(0, 500));
  assert.match(run.stdout, /status\.json: not valid JSON: nested deeper than 1000 levels\n/);
});

// Every file bootstatus reads at run time, with something that is not a regular file in its place: nothing may
// block on it. status.json is covered above; these would otherwise make `--wait --explain` hang before it finishes.
const READ_FILES = [
  "etc/cloud/cloud.cfg",
  "etc/cloud/cloud.cfg.d/50-x.cfg",
  "proc/cmdline",
  "proc/1/environ",
  "proc/stat",
  "proc/sys/kernel/random/boot_id",
  "var/lib/cloud/instance/cloud-config.txt",
  "var/lib/cloud/instance/vendor-cloud-config.txt",
  "var/log/cloud-init.log",
  "var/log/cloud-init-output.log",
];

async function placeNonRegular(
  file: string,
  kind: string,
  t: { after(fn: () => void): void },
): Promise<void> {
  mkdirSync(path.dirname(file), { recursive: true });
  if (kind === "fifo") assert.equal(spawnSync("mkfifo", [file]).status, 0);
  else if (kind === "directory") mkdirSync(file);
  else if (kind === "device") assert.equal(spawnSync("mknod", [file, "c", "1", "5"]).status, 0);
  else {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(file, resolve));
    t.after(() => server.close());
  }
}

const kinds = ["fifo", "socket", "directory", ...(process.getuid?.() === 0 ? ["device"] : [])];
for (const kind of kinds) {
  test(`a ${kind} in place of each file read at run time blocks nothing (--wait --explain)`, async (t) => {
    for (const name of READ_FILES) {
      const { root, runDir } = tree(t);
      writeFileSync(path.join(runDir, "status.json"), '{"v1": {"init": {"start": 1, "finished": 2}}}');
      writeFileSync(path.join(runDir, "result.json"), "{}");
      await placeNonRegular(path.join(root, name), kind, t);
      const run = await runCli(["--wait", "--timeout", "10", "--explain", "--root", root]);
      assert.equal(run.code, 0, `${name}: ${run.stderr}`);
      assert.match(run.stdout, /^status: done\nexplain /, name);
    }
  });
}

// NODE_EXTRA_CA_CERTS is not tried: Node itself reads it when the process starts, before any of bootstatus runs
// (a FIFO there hangs `node -e 0` too); the copy bootstatus reads again for its `ca` list is non-blocking.
test("a FIFO as SSL_CERT_FILE (the system store) blocks no report", async (t) => {
  const { root, runDir } = tree(t);
  writeFileSync(path.join(runDir, "status.json"), '{"v1": {"init": {"start": 1, "finished": 2}}}');
  writeFileSync(path.join(runDir, "result.json"), "{}");
  const fifo = path.join(root, "ca.pem");
  assert.equal(spawnSync("mkfifo", [fifo]).status, 0);
  const received: string[] = [];
  const server = createHttpServer((req, res) => {
    req.on("data", (c: Buffer) => received.push(c.toString()));
    req.on("end", () => res.end("ok"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => server.close());
  const { port } = server.address() as { port: number };
  const run = await runCli(
    ["report", "--to", `http://127.0.0.1:${port}/r`, "--timeout", "10", "--root", root],
    {
      env: { BOOTSTATUS_REPORT_SECRET: "s", SSL_CERT_FILE: fifo },
    },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.match(received.join(""), /"status": "done"/);
});
