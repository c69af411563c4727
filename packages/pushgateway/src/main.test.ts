import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { type MainDeps, main } from "./main.js";

/** Deps that record V8 flag changes and what was logged; nothing here serves, so no signal handler is needed. */
function fakeDeps(): { deps: MainDeps; flags: string[]; log: () => string } {
  const flags: string[] = [];
  let log = "";
  const deps: MainDeps = {
    stdout: { write: () => true },
    stderr: { write: (s: string) => (log += s) },
    now: () => new Date(0),
    onSignal: () => undefined,
    exit: () => undefined,
    env: {},
    pid: 1,
    runtime: { node: "20.0.0", platform: "linux", arch: "x64" },
    setV8Flags: (f) => flags.push(f),
  };
  return { deps, flags, log: () => log };
}

test("Redis mode gives up V8's --optimize-for-size and the fixed young generation (replicas' throughput, bench/pushgateway/README.md)", async () => {
  const dir = await mkdtemp(join(tmpdir(), "pg-main-"));
  try {
    const { deps, flags, log } = fakeDeps();
    // An unreadable password file ends the start right after the mode is chosen, before any connection.
    const code = await main(
      ["--storage.redis-url=redis://127.0.0.1:1/0", `--storage.redis-password-file=${join(dir, "absent")}`],
      deps,
    );
    assert.equal(code, 1);
    assert.match(log(), /Cannot read --storage\.redis-password-file/);
    assert.deepEqual(flags, ["--no-optimize-for-size", "--semi-space-growth-factor=2"]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("the single process keeps V8 sized for memory (our RSS goal) and its young generation fixed, both off only while it loads the file", async () => {
  const dir = await mkdtemp(join(tmpdir(), "pg-main-"));
  try {
    const { deps, flags, log } = fakeDeps();
    // A persistence file that is a directory ends the start before serving.
    const code = await main([`--persistence.file=${dir}`], deps);
    assert.equal(code, 1);
    assert.match(log(), /Cannot read persistence file/);
    assert.deepEqual(flags, [
      "--no-optimize-for-size",
      "--semi-space-growth-factor=2",
      "--semi-space-growth-factor=1",
      "--optimize-for-size",
    ]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
