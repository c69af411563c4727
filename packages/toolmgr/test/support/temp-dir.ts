import { rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

// Tests remove the temporary directories they create (the guide's rule; a run of the suites left hundreds): every
// directory made here is removed when the test file's process exits, passed or failed.
const made: string[] = [];
process.on("exit", () => {
  for (const dir of made) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
    } catch (e) {
      process.stderr.write(`cleanup ${dir}: ${e}\n`);
    }
  }
});

/** A fresh directory under the system's temporary directory, removed when this test file's process exits. */
export async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
