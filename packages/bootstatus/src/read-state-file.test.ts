import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { readStateFile, STATE_FILE_LIMIT } from "./read-state-file.js";

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(tmpdir(), "bootstatus-read-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test("a regular file is read whole; a missing one is missing", (t) => {
  const dir = tempDir(t);
  writeFileSync(path.join(dir, "f"), "hello");
  const read = readStateFile(path.join(dir, "f"));
  assert.equal(read.kind === "ok" && read.bytes.toString(), "hello");
  assert.deepEqual(readStateFile(path.join(dir, "absent")), { kind: "missing" });
  assert.deepEqual(readStateFile(path.join(dir, "f", "below-a-file")), { kind: "missing" });
});

test("character devices are refused by type, without reading them (/dev/zero would never end)", () => {
  assert.deepEqual(readStateFile("/dev/zero"), {
    kind: "refused",
    reason: "it is a character device, not a regular file",
  });
  assert.deepEqual(readStateFile("/dev/null"), {
    kind: "refused",
    reason: "it is a character device, not a regular file",
  });
});

test("a /proc file (size 0 in stat) is read to its end", () => {
  const read = readStateFile("/proc/self/status");
  assert.ok(read.kind === "ok" && read.bytes.toString().includes("Pid:"));
});

test("a file over the limit is refused with the limit named, after reading at most limit + 1 bytes", (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, "big");
  writeFileSync(file, "x".repeat(1000));
  assert.deepEqual(readStateFile(file, { limit: 999 }), {
    kind: "refused",
    reason: "it is larger than 999 bytes, bootstatus's limit for one state file",
  });
  const exact = readStateFile(file, { limit: 1000 });
  assert.equal(exact.kind === "ok" && exact.bytes.length, 1000);
  assert.equal(STATE_FILE_LIMIT, 256 * 1024 * 1024);
});

test("a file that keeps growing while it is read is cut off at the limit", async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, "growing");
  writeFileSync(file, "");
  // A writer that appends as fast as it can; the reader must stop at its limit instead of chasing it. The writer
  // bounds itself (256 MiB, 30 s, its parent gone): killed by a test runner that never ran t.after, an unbounded one
  // filled the disk.
  const writer = spawn(process.execPath, [
    "-e",
    `const fs=require("node:fs");const b=Buffer.alloc(1<<16,120);const p=process.ppid,end=Date.now()+30000;` +
      `for(let n=0;n<256<<20&&Date.now()<end&&process.ppid===p;n+=b.length)fs.appendFileSync(${JSON.stringify(file)},b)`,
  ]);
  // Stopped before the directory is removed (t.after hooks run in order, and a writer that recreates the file
  // made the removal fail, which skipped the hook that killed it).
  const exited = new Promise((resolve) => writer.once("exit", resolve));
  try {
    const deadline = Date.now() + 10_000;
    while (statSync(file).size < 4 << 20 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    const read = readStateFile(file, { limit: 1 << 20 });
    assert.equal(read.kind, "refused");
  } finally {
    writer.kill("SIGKILL");
    await exited;
  }
});
