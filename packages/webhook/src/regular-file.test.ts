import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { appendFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { FileReadTimeoutError, NotRegularFileError } from "./errors.js";
import { readRegularFile, readRegularFileSync, withReadDeadline } from "./regular-file.js";

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "webhook-regular-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test("a FIFO, a socket and a device are refused naming the path and type, by both readers, without blocking", async () => {
  const fifo = join(dir, "f.fifo");
  execFileSync("mkfifo", [fifo]);
  const socketPath = join(dir, "s.sock");
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  try {
    for (const [path, type] of [
      [fifo, "a named pipe (FIFO)"],
      [socketPath, "a socket"],
      ["/dev/zero", "a character device"],
    ] as const) {
      const expected = new NotRegularFileError(path, type).message;
      assert.match(
        expected,
        new RegExp(`^open ${path}: is ${type.replace(/[()]/g, "\\$&")}, not a regular file`),
      );
      await assert.rejects(readRegularFile(path), { message: expected });
      assert.throws(() => readRegularFileSync(path), { message: expected });
    }
  } finally {
    server.close();
  }
});

test("a directory and a missing file fail with the errno texts Go's os.ReadFile gives", async () => {
  const sub = join(dir, "d");
  await mkdir(sub);
  await assert.rejects(readRegularFile(sub), { code: "EISDIR", syscall: "read", path: sub });
  assert.throws(() => readRegularFileSync(sub), { code: "EISDIR", syscall: "read", path: sub });
  const missing = join(dir, "missing");
  await assert.rejects(readRegularFile(missing), { code: "ENOENT", syscall: "open", path: missing });
  assert.throws(() => readRegularFileSync(missing), { code: "ENOENT", syscall: "open" });
});

test("a file that grows while it is read is read up to its size at open, and the read ends", async () => {
  const path = join(dir, "growing");
  await writeFile(path, "x".repeat(3 * 1024 * 1024));
  let growing = true;
  const writer = (async () => {
    while (growing) await appendFile(path, "y".repeat(64 * 1024));
  })();
  try {
    for (let i = 0; i < 5; i++) {
      const data = await readRegularFile(path);
      assert.ok(data.length >= 3 * 1024 * 1024);
      assert.equal(data.subarray(0, 3 * 1024 * 1024).toString(), "x".repeat(3 * 1024 * 1024));
    }
    assert.ok(readRegularFileSync(path).length >= 3 * 1024 * 1024);
  } finally {
    growing = false;
    await writer;
  }
});

test("a read that gets no answer in time is given up with the path named", async () => {
  // A read a stalled mount never answers.
  const stalled = new Promise<Buffer>(() => {});
  await assert.rejects(
    withReadDeadline(stalled, { path: "/mnt/nfs/hooks.json", timeoutMs: 50 }),
    new FileReadTimeoutError("/mnt/nfs/hooks.json", 0.05),
  );
  const path = join(dir, "answered");
  await writeFile(path, "data");
  assert.equal((await readRegularFile(path, 5000)).toString(), "data");
});
