import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { lstat, readdir, readFile, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { blockProject, HELLO, startBlockHost } from "./support/block-project.js";
import type { FakeCodeHost } from "./support/fake-code-host.js";
import { type CliResult, runCli, runProgram } from "./support/run-cli.js";
import { tempDir } from "./support/temp-dir.js";

// The shim's hot path (shims.ts, shim-record.ts): while toolmgr.toml and toolmgr.lock are the files sync/exec last
// found current, the shim decides with shell built-ins alone, so these tests run it with a PATH that has no awk, no
// wc and no toolmgr: only the hot path can answer there. Whatever changed, the shim refuses as `toolmgr exec` does.

const execFileP = promisify(execFile);
let host: FakeCodeHost;

before(async () => {
  host = await startBlockHost();
});

after(async () => {
  await host.close();
});

/** A locked and synced project, its shim and `exec` run side by side. */
async function synced(toml = HELLO) {
  const p = await blockProject(host, toml);
  assert.equal((await p.run("lock")).code, 0);
  const s = await p.run("sync");
  assert.equal(s.code, 0, s.stderr);
  const shims = join(p.home, "shims");
  const config = join(p.dir, "config");
  /** The shim with only the shims directory on PATH (no awk, no wc), or with `path`. */
  const shim = (args: string[], path = shims) =>
    runProgram(join(shims, "hello"), args, {
      cwd: p.dir,
      env: { PATH: path, TOOLMGR_HOME: p.home, XDG_CONFIG_HOME: config },
    });
  const exec = (args: string[]) =>
    runCli(["exec", "hello", ...args], {
      cwd: p.dir,
      env: {
        TOOLMGR_HOME: p.home,
        CODEHOST_API_URL: host.apiUrl,
        XDG_CONFIG_HOME: config,
        PATH: "/usr/bin:/bin",
      },
    });
  /** The shim (with awk on PATH) and exec agree; the shim's result. */
  const both = async (args: string[] = []): Promise<CliResult> => {
    const viaShim = await shim(args, `${shims}:/usr/bin:/bin`);
    const viaExec = await exec(args);
    assert.deepEqual(viaShim, { code: viaExec.code, stdout: viaExec.stdout, stderr: viaExec.stderr });
    return viaShim;
  };
  return { ...p, shims, shim, exec, both, record: join(p.home, "projects", p.dir) };
}

test("a current project's shim runs its pin with shell built-ins alone (no awk, wc or toolmgr on PATH)", async () => {
  const p = await synced();
  const names = await readdir(p.record);
  for (const name of ["shim-answers.sh", "toolmgr.toml.link", "toolmgr.lock.link"])
    assert.ok(names.includes(name));
  assert.equal(
    (await stat(join(p.record, "toolmgr.toml.link"))).ino,
    (await stat(join(p.dir, "toolmgr.toml"))).ino,
  );
  const r = await p.shim(["a", "b c"]);
  assert.deepEqual(r, { code: 0, stdout: "hello 1.2.3 a b c\n", stderr: "" });
  // From a directory below the project too, and again after exec (which finds the record current and keeps it).
  assert.equal((await p.exec(["x"])).stdout, "hello 1.2.3 x\n");
  assert.equal((await p.shim(["y"])).stdout, "hello 1.2.3 y\n");
  // No temporary link is left beside the record.
  assert.deepEqual(
    (await readdir(p.record)).filter((n) => n.startsWith(".tmp-")),
    [],
  );
});

test("an edit right after sync, in place and keeping the size, is refused with exec's words", async () => {
  const p = await synced();
  assert.equal((await p.shim([])).code, 0, "the hot path answers first");
  const toml = join(p.dir, "toolmgr.toml");
  const before = await stat(toml);
  const edited = HELLO.replace('version = "1.2"', 'version = "1.3"');
  assert.equal(edited.length, HELLO.length);
  await writeFile(toml, edited); // the same inode, the same size, within the second of the record
  assert.equal((await stat(toml)).ino, before.ino);
  assert.equal((await stat(toml)).size, before.size);
  const r = await p.both();
  assert.equal(r.code, 1);
  assert.match(r.stderr, /hello: locked for "1\.2" but toolmgr\.toml asks for "1\.3"; run `toolmgr lock`\n$/);
  // Without awk the shim cannot check the changed file: it says which program it needs, not "not pinned".
  const bare = await p.shim([]);
  assert.equal(bare.code, 1);
  assert.match(
    bare.stderr,
    /^toolmgr: Cannot check .*toolmgr\.lock: the shim needs "awk", which is not on PATH/,
  );
});

test("a file replaced by an older one of the same size (another inode) is refused with exec's words", async () => {
  const p = await synced();
  assert.equal((await p.shim([])).code, 0);
  const toml = join(p.dir, "toolmgr.toml");
  const other = join(p.dir, "toolmgr.toml.new");
  await writeFile(other, HELLO.replace('version = "1.2"', 'version = "1.3"'));
  const hourAgo = Date.now() / 1000 - 3600;
  await utimes(other, hourAgo, hourAgo); // older than the record, as `tar x` or `mv` of an old file leaves it
  await rename(other, toml);
  const r = await p.both();
  assert.equal(r.code, 1);
  assert.match(r.stderr, /locked for "1\.2" but toolmgr\.toml asks for "1\.3"/);
});

test("on the hot path a damaged or missing install is refused with exec's words", async () => {
  const p = await synced();
  const [install = ""] = await readdir(join(p.home, "tools", "hello"));
  await rm(join(p.home, "tools", "hello", install, ".toolmgr-install"));
  const damaged = await p.shim([]);
  assert.equal(damaged.code, 1);
  assert.equal(
    damaged.stderr,
    '"hello" 1.2.3 is damaged: its completion marker is missing; run `toolmgr sync`\n'.replace(
      /^/,
      "toolmgr: ",
    ),
  );
  assert.deepEqual(await p.both(), damaged);
  await rm(join(p.home, "tools", "hello", install), { recursive: true });
  const missing = await p.shim([]);
  assert.equal(missing.stderr, 'toolmgr: "hello" 1.2.3 is not installed; run `toolmgr sync`\n');
  assert.deepEqual(await p.both(), missing);
});

test("the hot path is the shim's first lines and needs nothing after them; what it cannot answer goes on", async () => {
  // sh parses a script one command at a time: a shim whose hot path comes first runs the tool before sh has parsed
  // the slow path's functions and setup (bench/toolmgr/README.md "Hot paths"). Cut after the hot path, the shim
  // must still run a current project's pin, and must run nothing (go on past the cut) whenever it cannot answer.
  const p = await synced();
  const text = await readFile(join(p.shims, "hello"), "utf8");
  const end = text.indexOf("\nfi\n");
  assert.ok(end > 0 && end < 1500, "the hot path ends within the shim's first lines");
  const dir = await tempDir("toolmgr-hot-cut-");
  const cut = join(dir, "hello");
  await writeFile(cut, `${text.slice(0, end)}\nfi\necho past the hot path >&2\nexit 99\n`, { mode: 0o755 });
  const run = () =>
    runProgram(cut, ["a"], {
      cwd: p.dir,
      env: { PATH: p.shims, TOOLMGR_HOME: p.home, XDG_CONFIG_HOME: join(p.dir, "config") },
    });
  assert.deepEqual(await run(), { code: 0, stdout: "hello 1.2.3 a\n", stderr: "" });
  const [install = ""] = await readdir(join(p.home, "tools", "hello"));
  const marker = join(p.home, "tools", "hello", install, ".toolmgr-install");
  const saved = await readFile(marker);
  await rm(marker);
  assert.deepEqual(await run(), { code: 99, stdout: "", stderr: "past the hot path\n" }, "a damaged install");
  await writeFile(marker, saved);
  assert.equal((await run()).code, 0);
  const toml = join(p.dir, "toolmgr.toml");
  await writeFile(toml, await readFile(toml, "utf8")); // the same text, written after the record
  assert.deepEqual(
    await run(),
    { code: 99, stdout: "", stderr: "past the hot path\n" },
    "a file written since",
  );
});

test("a lock with a 50 MB comment is refused by the shim and exec alike, naming the limit", async () => {
  const p = await synced();
  const lock = join(p.dir, "toolmgr.lock");
  await writeFile(lock, `${await readFile(lock, "utf8")}# ${"x".repeat(50_000_000)}\n`);
  const r = await p.both();
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /^toolmgr: Cannot read .*toolmgr\.lock: it has 50\d{6} bytes, over the 8 MiB \(8388608 bytes\) toolmgr reads of a lock file\n$/,
  );
  const status = await p.run("status");
  assert.equal(status.code, 1);
  assert.match(status.stderr, /over the 8 MiB \(8388608 bytes\) toolmgr reads of a lock file/);
});

test("a project file or lock that is a FIFO, a directory, a socket or a device is refused by type, never waited on", async () => {
  const p = await synced();
  const lock = join(p.dir, "toolmgr.lock");
  const toml = join(p.dir, "toolmgr.toml");
  const saved = await readFile(lock, "utf8");
  const cases: [string, string, () => Promise<unknown>][] = [
    [lock, "a FIFO \\(named pipe\\)", () => execFileP("mkfifo", [lock])],
    [lock, "a directory", () => execFileP("mkdir", [lock])],
    [lock, "a character device", () => execFileP("ln", ["-s", "/dev/zero", lock])],
    [toml, "a FIFO \\(named pipe\\)", () => execFileP("mkfifo", [toml])],
    [toml, "a directory", () => execFileP("mkdir", [toml])],
  ];
  for (const [path, type, make] of cases) {
    const keep = await readFile(path === lock ? lock : toml, "utf8").catch(() => undefined);
    await rm(path, { force: true, recursive: true });
    await make();
    const r = await p.both();
    assert.equal(r.code, 1, `${path} as ${type}`);
    assert.match(
      r.stderr,
      new RegExp(`^toolmgr: Cannot read ${path}: it is ${type}, not a regular file\\n$`),
    );
    const status = await p.run("status");
    assert.match(status.stderr, new RegExp(`Cannot read ${path}: it is ${type}, not a regular file`));
    await rm(path, { force: true, recursive: true });
    await writeFile(path, keep ?? saved);
  }
  // A socket.
  await rm(lock);
  const server = createServer().listen(lock);
  await new Promise((resolve) => server.once("listening", resolve));
  try {
    assert.equal((await lstat(lock)).isSocket(), true);
    const r = await p.both();
    assert.match(
      r.stderr,
      new RegExp(`^toolmgr: Cannot read ${lock}: it is a socket, not a regular file\\n$`),
    );
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test("a shim with no record and no awk names awk, where it said the tool was not pinned", async () => {
  const p = await synced();
  await rm(join(p.home, "projects"), { recursive: true });
  const r = await p.shim([]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /the shim needs "awk", which is not on PATH/);
  // With awk but no wc, wc is named.
  const dir = await tempDir("toolmgr-awk-only-");
  await execFileP("ln", [
    "-s",
    (await execFileP("sh", ["-c", "command -v awk"])).stdout.trim(),
    join(dir, "awk"),
  ]);
  const r2 = await p.shim([], `${p.shims}:${dir}`);
  assert.match(r2.stderr, /the shim needs "wc", which is not on PATH/);
});

test("variables the caller exported reach the tool unchanged, on the hot path and the full check", async () => {
  const p = await synced();
  const [install = ""] = await readdir(join(p.home, "tools", "hello"));
  // The installed executable, rewritten to print the environment names a shim script would naturally use.
  const names = [
    "cmd",
    "dir",
    "home",
    "target",
    "fast",
    "ok",
    "rec",
    "toml",
    "lock",
    "platform",
    "found",
    "g",
  ];
  await writeFile(
    join(p.home, "tools", "hello", install, "hello"),
    `#!/bin/sh\necho ${names.map((n) => `${n}=$${n}`).join(" ")}\n`,
    { mode: 0o755 },
  );
  const caller = Object.fromEntries(names.map((n) => [n, `caller's ${n}`]));
  const want = `${names.map((n) => `${n}=caller's ${n}`).join(" ")}\n`;
  const env = { TOOLMGR_HOME: p.home, XDG_CONFIG_HOME: join(p.dir, "config"), ...caller };
  const hot = await runProgram(join(p.shims, "hello"), [], { cwd: p.dir, env: { ...env, PATH: p.shims } });
  assert.deepEqual(hot, { code: 0, stdout: want, stderr: "" });
  // A touched project file: the shim decides with awk (the full check), which assigns many more of its variables.
  const later = Date.now() / 1000 + 5;
  await utimes(join(p.dir, "toolmgr.toml"), later, later);
  const full = await runProgram(join(p.shims, "hello"), [], {
    cwd: p.dir,
    env: { ...env, PATH: `${p.shims}:/usr/bin:/bin` },
  });
  assert.deepEqual(full, { code: 0, stdout: want, stderr: "" });
});
