import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { mkdir, readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { blockProject, HELLO, startBlockHost } from "./support/block-project.js";
import type { FakeCodeHost } from "./support/fake-code-host.js";

// The store's own files and a lock that grows while it is read: toolmgr never waits on a FIFO put where it keeps a
// record or a remembered answer, and reads no file past its limit (src/bounded-read.ts, README "Limits").

const execFileP = promisify(execFile);
let host: FakeCodeHost;

before(async () => {
  host = await startBlockHost();
});

after(async () => {
  await host.close();
});

test("a FIFO in place of a project record or of the remembered API answers is not waited on", async () => {
  const p = await blockProject(host, HELLO);
  assert.equal((await p.run("lock")).code, 0);
  assert.equal((await p.run("sync")).code, 0);
  const record = join(p.home, "projects", p.dir);
  // The record's copy of the lock becomes a FIFO, and the project file is touched so the full check runs and
  // compares the record (a read of the FIFO would wait for a writer for ever; runCli has no timeout of its own).
  await rm(join(record, "toolmgr.lock"));
  await execFileP("mkfifo", [join(record, "toolmgr.lock")]);
  const now = Date.now() / 1000 + 1;
  await utimes(join(p.dir, "toolmgr.toml"), now, now);
  const exec = await p.run("exec", "hello", "x");
  assert.equal(exec.code, 0, exec.stderr);
  assert.equal(exec.stdout, "hello 1.2.3 x\n");
  // The record was written again as a regular file.
  assert.equal(
    await readFile(join(record, "toolmgr.lock"), "utf8"),
    await readFile(join(p.dir, "toolmgr.lock"), "utf8"),
  );

  // The remembered API answers of the project: a FIFO is no answer, the requests are made in full.
  const [answers] = await readdir(join(p.home, "cache", "http"));
  assert.ok(answers);
  await rm(join(p.home, "cache", "http", answers));
  await execFileP("mkfifo", [join(p.home, "cache", "http", answers)]);
  const lock = await p.run("lock");
  assert.equal(lock.code, 0, lock.stderr);
});

test("a directory in place of a project record's copy is replaced by sync, and the shim runs the tool again", async () => {
  // Found by test/cli-fuzz.test.ts: a rename cannot replace a directory, the failure was ignored, and every shim call
  // then failed in awk ("read error (Is a directory)") while toolmgr exec ran the tool.
  const p = await blockProject(host, HELLO);
  assert.equal((await p.run("lock")).code, 0);
  assert.equal((await p.run("sync")).code, 0);
  const record = join(p.home, "projects", p.dir);
  for (const copy of ["toolmgr.lock", "toolmgr.toml"]) {
    await rm(join(record, copy));
    await mkdir(join(record, copy, "x"), { recursive: true });
    const now = Date.now() / 1000 + 1;
    await utimes(join(p.dir, "toolmgr.toml"), now, now); // off the shim's hot path: the full check reads the record
    const sync = await p.run("sync");
    assert.equal(sync.code, 0, sync.stderr);
    assert.equal(await readFile(join(record, copy), "utf8"), await readFile(join(p.dir, copy), "utf8"));
    const shim = await p.shim("hello", { args: ["x"] });
    assert.deepEqual([shim.code, shim.stdout, shim.stderr], [0, "hello 1.2.3 x\n", ""]);
  }
});

test("a lock that grows while it is read is refused at its limit, never read without end", async () => {
  const p = await blockProject(host, HELLO);
  assert.equal((await p.run("lock")).code, 0);
  const lockPath = join(p.dir, "toolmgr.lock");
  await writeFile(lockPath, `${await readFile(lockPath, "utf8")}#\n`);
  // A writer that appends 1 MiB comment lines until the lock has 24 MiB, while status reads it.
  const writer = spawn(
    process.execPath,
    [
      "-e",
      `const fs = require("node:fs"); const line = "# " + "x".repeat(1 << 20) + "\\n";
       const fd = fs.openSync(process.argv[1], "a");
       for (let i = 0; i < 24; i++) fs.writeSync(fd, line);`,
      lockPath,
    ],
    { stdio: "ignore" },
  );
  const done = new Promise((resolve) => writer.on("close", resolve));
  try {
    const results = [];
    for (let i = 0; i < 5; i++) results.push(await p.run("status"));
    await done;
    results.push(await p.run("status"));
    for (const r of results) {
      // Read whole while still small (a current lock with comments), or refused at the limit: never more.
      if (r.code === 1)
        assert.match(r.stderr, /over the 8 MiB \(8388608 bytes\) toolmgr reads of a lock file/);
      else assert.ok(r.code === 0 || r.code === 3, r.stderr);
    }
    assert.equal(results.at(-1)?.code, 1, "the lock ended over its limit");
  } finally {
    writer.kill("SIGKILL");
    await done;
  }
});
