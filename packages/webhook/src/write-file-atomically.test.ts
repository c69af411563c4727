import assert from "node:assert/strict";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { writeFileAtomically } from "./write-file-atomically.js";

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "webhook-atomic-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test("a reader polling the file while it is rewritten sees the old or the new text, never an empty file", async () => {
  const path = join(dir, "w.pid");
  await writeFile(path, "1");
  let stop = false;
  const seen = new Set<string>();
  const reader = (async () => {
    while (!stop) seen.add(await readFile(path, "utf8"));
  })();
  for (let i = 2; i < 300; i++) await writeFileAtomically(path, String(i));
  stop = true;
  await reader;
  assert.ok(!seen.has(""), "an empty pid file was seen");
  for (const text of seen) assert.match(text, /^\d+$/);
  assert.equal(await readFile(path, "utf8"), "299");
  assert.equal((await stat(path)).mode & 0o777, 0o600);
  assert.deepEqual(await readdir(dir), ["w.pid"], "no temporary file is left");
});

test("a failure reads as Go's open error on the path asked for, and leaves no temporary file", async () => {
  const target = join(dir, "is-a-dir");
  await mkdir(join(target, "inside"), { recursive: true });
  await assert.rejects(writeFileAtomically(target, "1"), (error: NodeJS.ErrnoException) => {
    assert.equal(error.syscall, "open");
    assert.equal(error.path, target);
    assert.equal(error.code, "EISDIR");
    return true;
  });
  await assert.rejects(writeFileAtomically(join(dir, "missing", "w.pid"), "1"), {
    code: "ENOENT",
    syscall: "open",
  });
  assert.deepEqual(
    (await readdir(dir)).filter((name) => name.endsWith(".tmp")),
    [],
  );
});

test("a directory at the path fails as Go's os.WriteFile does (open <path>: is a directory), leaving nothing beside it", async () => {
  const target = join(dir, "a-directory");
  await mkdir(join(target, "inside"), { recursive: true });
  for (const path of [target, `${dir}/.`]) {
    await assert.rejects(writeFileAtomically(path, "1"), { code: "EISDIR", syscall: "open", path });
  }
  assert.deepEqual(await readdir(target), ["inside"]);
  assert.ok(!(await readdir(dir)).some((name) => name.endsWith(".tmp")));
});
