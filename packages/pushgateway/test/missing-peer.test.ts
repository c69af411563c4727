// A peer test file run where the peer is not installed fails at once and leaves no process behind (before, the
// gateway a file had already started kept the file alive until an outside timeout). Runs the real *.peers.test.js
// files with the peer path pointed at a file that does not exist; needs only Node, so it is in `npm test`.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const MISSING = "/nonexistent/prometheus-pushgateway";
const DEADLINE_MS = 60_000;

/** Runs one built test file under `node --test`; resolves with its exit code and output, or rejects past the deadline. */
function runTestFile(file: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  // NODE_TEST_CONTEXT would make the inner runner report to this one instead of running on its own.
  const { NODE_TEST_CONTEXT: _, ...inherited } = process.env;
  const child = spawn(process.execPath, ["--test", file], {
    env: { ...inherited, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (d: Buffer) => {
    output += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    output += d.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${file} did not end within ${DEADLINE_MS} ms without its peer: ${output}`));
    }, DEADLINE_MS);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// The first two start ours beside the peer (the files that used to hang); peer-parity starts the peer first.
for (const [name, startsOurs] of [
  ["wire.peers.test.js", true],
  ["protobuf-scrape.peers.test.js", true],
  ["peer-parity.peers.test.js", false],
] as const) {
  test(`${name} with the peer missing: fails at once, names the Debian package, leaves no process`, async () => {
    const dir = await mkdtemp(join(tmpdir(), "pg-missing-peer-"));
    try {
      const pidFile = join(dir, "pids");
      const file = fileURLToPath(new URL(name, import.meta.url));
      const { code, output } = await runTestFile(file, {
        PUSHGATEWAY_TEST_PEER: MISSING,
        PUSHGATEWAY_TEST_PID_FILE: pidFile,
      });
      assert.notEqual(code, 0, output);
      assert.match(output, new RegExp(`Cannot start ${MISSING}: spawn ${MISSING} ENOENT`));
      assert.match(output, /install Debian's prometheus-pushgateway/);
      // Our gateway was started beside the missing peer; it is stopped, not orphaned.
      const pids = (await readFile(pidFile, "utf8").catch(() => "")).split("\n").filter(Boolean).map(Number);
      if (startsOurs) assert.ok(pids.length > 0, "the file started our gateway beside the peer");
      assert.deepEqual(
        pids.filter((pid) => alive(pid)),
        [],
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}
