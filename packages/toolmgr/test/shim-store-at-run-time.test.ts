import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { cp } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { blockProject, HELLO, startBlockHost } from "./support/block-project.js";
import type { FakeCodeHost } from "./support/fake-code-host.js";
import { type CliResult, runCli, runProgram } from "./support/run-cli.js";
import { tempDir } from "./support/temp-dir.js";

// Issue 31 item 2: a shim decides its store at run time, as `toolmgr exec` does (TOOLMGR_HOME, else
// $XDG_DATA_HOME/toolmgr, else ~/.local/share/toolmgr). nao1215/block e2e/atago/shim.atago.yaml, "a shim never
// installs, resolves or writes" and "a shim and block exec answer identically", run the shim of one store with
// BLOCK_HOME naming an empty one.

let host: FakeCodeHost;

before(async () => {
  host = await startBlockHost();
});

after(async () => {
  await host.close();
});

function runShim(path: string, options: { cwd: string; env: Record<string, string> }): Promise<CliResult> {
  return runProgram(path, ["--version"], options);
}

test("a shim written under one store looks in the store TOOLMGR_HOME names, and refuses as exec does there", async () => {
  const p = await blockProject(host, HELLO);
  assert.equal((await p.run("lock")).code, 0);
  assert.equal((await p.run("sync")).code, 0);
  const shim = join(p.home, "shims", "hello");
  const empty = join(p.dir, "empty");
  const env = { PATH: `${join(p.home, "shims")}:/usr/bin:/bin`, TOOLMGR_HOME: empty, HOME: p.dir };
  const fromShim = await runShim(shim, { cwd: p.dir, env });
  const fromExec = await runCli(["exec", "hello", "--version"], { cwd: p.dir, env });
  assert.equal(fromShim.code, 1);
  assert.equal(fromShim.stdout, "");
  assert.equal(fromShim.stderr, 'toolmgr: "hello" 1.2.3 is not installed; run `toolmgr sync`\n');
  assert.deepEqual(fromShim, fromExec, "the same refusal from both doors");
  // Nothing was installed, resolved or written into the store the environment names.
  assert.equal(existsSync(empty), false);
  // Under its own store it runs the pinned tool.
  const own = await runShim(shim, { cwd: p.dir, env: { ...env, TOOLMGR_HOME: p.home } });
  assert.equal(own.stdout, "hello 1.2.3 --version\n", own.stderr);
});

test("a store built at one path is used at another (relocated), also through XDG_DATA_HOME and HOME", async () => {
  const p = await blockProject(host, HELLO);
  assert.equal((await p.run("lock")).code, 0);
  assert.equal((await p.run("sync")).code, 0);
  const elsewhere = await tempDir("toolmgr-moved-");
  const cases = [
    { store: join(elsewhere, "store"), env: (store: string) => ({ TOOLMGR_HOME: store }) },
    { store: join(elsewhere, "data", "toolmgr"), env: () => ({ XDG_DATA_HOME: join(elsewhere, "data") }) },
    {
      store: join(elsewhere, "home", ".local", "share", "toolmgr"),
      env: () => ({ HOME: join(elsewhere, "home") }),
    },
  ];
  for (const { store, env } of cases) {
    // As a container image would carry it: the whole store copied to another path, the old one gone from view.
    await cp(p.home, store, { recursive: true });
    const shims = join(store, "shims");
    const base: Record<string, string> = { PATH: `${shims}:/usr/bin:/bin`, HOME: p.dir, ...env(store) };
    const r = await runShim(join(shims, "hello"), { cwd: p.dir, env: base });
    assert.equal(r.stdout, "hello 1.2.3 --version\n", `${store}: ${r.stderr}`);
    // runCli passes its own environment on: an empty TOOLMGR_HOME counts as unset, as in the shim.
    const which = await runCli(["which", "hello"], {
      cwd: p.dir,
      env: { TOOLMGR_HOME: "", XDG_DATA_HOME: "", ...base },
    });
    assert.match(
      which.stdout,
      new RegExp(`^${store}/tools/hello/1\\.2\\.3-[0-9a-f]{12}/hello\\n$`),
      which.stderr,
    );
  }
});
