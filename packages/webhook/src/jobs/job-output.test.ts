import assert from "node:assert/strict";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { JobOutput, outputBytesOnDisk, readOutput } from "./job-output.js";

test("job output: two segments at most on disk; the last `size` bytes read back whole", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "job-output-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const output = new JobOutput(dir, { size: 8 });
  let all = "";
  for (let i = 0; i < 50; i++) {
    const piece = `${i},`;
    all += piece;
    output.append(Buffer.from(piece));
  }
  output.close();
  assert.equal(output.bytes, all.length);
  assert.ok((await readdir(dir)).length <= 2);
  assert.equal(outputBytesOnDisk(dir, 8), all.length);
  const read: Buffer[] = [];
  for await (const chunk of readOutput(dir, { from: all.length - 8, to: all.length, size: 8 }))
    read.push(chunk);
  assert.equal(Buffer.concat(read).toString(), all.slice(-8));
  // Bytes whose segment is gone are skipped, not invented.
  const early: Buffer[] = [];
  for await (const chunk of readOutput(dir, { from: 0, to: 8, size: 8 })) early.push(chunk);
  assert.equal(Buffer.concat(early).length, 0);
});
