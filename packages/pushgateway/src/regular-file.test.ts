import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { withTempDir } from "../test/support/temp-dir.js";
import { readRegularFile, readRegularFileSync } from "./regular-file.js";

test("a file that grows while read is read as it was when opened, and the read ends", async () => {
  await withTempDir("pgw-growing-", async (dir) => {
    const file = join(dir, "growing");
    await writeFile(file, "x".repeat(4096));
    // A writer appending as fast as it can for as long as the test runs.
    const writer = spawn("sh", ["-c", `exec yes growing >> '${file}'`], { stdio: "ignore" });
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      for (const read of [
        async () => readRegularFileSync(file, { maxBytes: 1 << 30, what: "a test" }),
        () => readRegularFile(file, { maxBytes: 1 << 30, what: "a test" }),
      ]) {
        const before = (await stat(file)).size;
        const data = await read();
        const after = (await stat(file)).size;
        assert.ok(data.length >= before && data.length <= after, `${before} <= ${data.length} <= ${after}`);
      }
      // Grown past a limit: refused naming the size and the limit, nothing read.
      await assert.rejects(
        readRegularFile(file, { maxBytes: 4096, what: "a test" }),
        /^Error: is \d+ bytes, over the limit of 4096 bytes for a test$/,
      );
    } finally {
      writer.kill("SIGKILL");
      await new Promise((resolve) => writer.once("exit", resolve));
    }
  });
});

test("/dev/null reads as empty; /dev/zero and a directory are refused by type", async () => {
  assert.equal(readRegularFileSync("/dev/null", { maxBytes: 10, what: "a test" }).length, 0);
  assert.throws(
    () => readRegularFileSync("/dev/zero", { maxBytes: 10, what: "a test" }),
    (e: NodeJS.ErrnoException) =>
      e.code === "ENOTREG" && e.path === "/dev/zero" && /character device/.test(e.message),
  );
  await withTempDir("pgw-growing-", async (dir) => {
    await assert.rejects(
      readRegularFile(dir, { maxBytes: 10, what: "a test" }),
      /is a directory, not a regular file/,
    );
  });
});
