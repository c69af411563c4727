import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { copyFile, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { blockProject, HELLO, startBlockHost } from "./support/block-project.js";
import type { FakeCodeHost } from "./support/fake-code-host.js";
import { runCli } from "./support/run-cli.js";
import { tempDir } from "./support/temp-dir.js";

// A shim never runs itself: stepping aside skips every toolmgr shim on PATH (not only the shims directory), and a
// depth guard (TOOLMGR_SHIM_DEPTH, one per hop) ends any other cycle with a clear message and exit 1
// (nao1215/block e2e/atago/shim.atago.yaml, "a shim copied onto PATH is not its own fallback", "a fallback that
// calls the shim again is stopped by the depth guard").

const exec = promisify(execFile);
let host: FakeCodeHost;

before(async () => {
  host = await startBlockHost();
});

after(async () => {
  await host.close();
});

/** A synced project, a directory outside any project, and a `sysbin` directory after the shims on PATH. */
async function setup() {
  const p = await blockProject(host, HELLO);
  assert.equal((await p.run("lock")).code, 0);
  assert.equal((await p.run("sync")).code, 0);
  const outside = await tempDir("toolmgr-outside-");
  const sysbin = join(outside, "sysbin");
  const elsewhere = join(outside, "elsewhere");
  await mkdir(sysbin);
  await mkdir(elsewhere);
  const shims = join(p.home, "shims");
  const env = { PATH: `${shims}:${sysbin}:/usr/bin:/bin`, TOOLMGR_HOME: p.home };
  const run = (file: string) =>
    exec(file, ["--version"], { cwd: elsewhere, env, timeout: 5_000 }).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: { code: number | string; stdout: string; stderr: string }) => e,
    );
  return { p, sysbin, elsewhere, shims, env, run };
}

test("a shim copied elsewhere onto PATH is not its own fallback", async () => {
  const s = await setup();
  await copyFile(join(s.shims, "hello"), join(s.sysbin, "hello"));
  const r = await s.run(join(s.shims, "hello"));
  assert.equal(r.code, 127);
  assert.equal(r.stdout, "");
  assert.match(
    r.stderr,
    /hello is not pinned in any toolmgr\.lock above .*, and no other hello is on PATH\n$/,
  );
  // The copy itself, run first, steps aside past both.
  const copy = await s.run(join(s.sysbin, "hello"));
  assert.equal(copy.code, 127);
  const which = await runCli(["which", "hello"], { cwd: s.elsewhere, env: s.env });
  assert.equal(which.code, 1);
  assert.equal(which.stdout, "");
});

test("a fallback that calls the shim again is stopped by the depth guard after eight hops", async () => {
  const s = await setup();
  await writeFile(
    join(s.sysbin, "hello"),
    '#!/bin/sh\necho "wrapper depth=$TOOLMGR_SHIM_DEPTH"\nexec hello "$@"\n',
    { mode: 0o755 },
  );
  const r = await s.run(join(s.shims, "hello"));
  assert.equal(r.code, 1);
  assert.equal(r.stdout, [1, 2, 3, 4, 5, 6, 7, 8].map((n) => `wrapper depth=${n}\n`).join(""));
  assert.match(r.stderr, /^toolmgr: hello: shims are calling each other in a loop \(8 hops\)/);
});

test("a pinned command is unaffected by an inherited depth count", async () => {
  const s = await setup();
  const r = await exec(join(s.shims, "hello"), ["x"], {
    cwd: s.p.dir,
    env: { ...s.env, TOOLMGR_SHIM_DEPTH: "8" },
    timeout: 5_000,
  });
  assert.equal(r.stdout, "hello 1.2.3 x\n");
});
