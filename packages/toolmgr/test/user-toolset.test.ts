import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { shimScript } from "../src/store/shims.js";
import { startBlockHost } from "./support/block-project.js";
import type { FakeCodeHost } from "./support/fake-code-host.js";
import { addDuo, sharedStore, toolsToml } from "./support/shared-store.js";

// Issue 31 item 5: a user toolset at $XDG_CONFIG_HOME/toolmgr/toolmgr.toml, locked and installed only by
// `lock --global` and `sync --global`. Shims, exec and which use the nearest project's pin for a command the project
// pins, else the user toolset's, else they step aside (aquaproj/aqua#2782, mise `use -g`; foundry users outside a
// project without foundryup).

let host: FakeCodeHost;

before(async () => {
  host = await startBlockHost();
  await addDuo(host);
});

after(async () => {
  await host.close();
});

const tool = (name: string, version: string) => toolsToml({ [name]: version });

async function setup() {
  const store = await sharedStore(host);
  const dirs = {
    outside: join(store.root, "elsewhere"),
    project: join(store.root, "project"),
    other: join(store.root, "other"),
  };
  for (const dir of [join(store.config, "toolmgr"), ...Object.values(dirs)])
    await mkdir(dir, { recursive: true });
  return { ...store, ...dirs };
}

test("the user toolset is locked and installed only with --global, and answers outside a project", async () => {
  const u = await setup();
  // Nothing yet: --global names the file to create; a plain lock outside a project points at --global.
  const missing = await u.run(u.outside, "lock", "--global");
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /Cannot find the user toolset .*config\/toolmgr\/toolmgr\.toml: create it/);
  assert.match((await u.run(u.outside, "lock")).stderr, /or use --global for the user toolset/);

  await writeFile(join(u.config, "toolmgr", "toolmgr.toml"), `${tool("hello", "1.2.0")}`);
  const lock = await u.run(u.outside, "lock", "--global");
  assert.equal(lock.stdout, "hello  locked 1.2.0\nwrote toolmgr.lock\n", lock.stderr);
  assert.ok(existsSync(join(u.config, "toolmgr", "toolmgr.lock")));
  // Locked, not installed: status --global and exec say so, and nothing installs implicitly.
  const status = await u.run(u.outside, "status", "--global");
  assert.equal(status.code, 3);
  assert.match(
    status.stdout,
    /hello +1\.2\.0 +1\.2\.0 +not installed {2}\(not installed; run `toolmgr sync --global`\)/,
  );
  const exec = await u.run(u.outside, "exec", "hello");
  assert.equal(exec.code, 1);
  assert.equal(exec.stderr, 'toolmgr: "hello" 1.2.0 is not installed; run `toolmgr sync --global`\n');
  assert.equal(existsSync(join(u.home, "tools")), false, "nothing was installed implicitly");

  const sync = await u.run(u.outside, "sync", "--global");
  assert.equal(sync.code, 0, sync.stderr);
  assert.match(sync.stdout, /^hello {2}installed 1\.2\.0\nshims: hello\n/);
  assert.equal((await u.run(u.outside, "status", "--global")).code, 0);
  assert.equal((await u.shim(u.outside, "hello")).stdout, "hello 1.2.0 \n");
  assert.equal((await u.run(u.outside, "exec", "hello")).stdout, "hello 1.2.0 \n");
  assert.match(
    (await u.run(u.outside, "which", "hello")).stdout,
    /\/tools\/hello\/1\.2\.0-[0-9a-f]{12}\/hello\n$/,
  );

  // A stale user toolset is refused by the shim and exec alike, naming lock --global.
  await writeFile(join(u.config, "toolmgr", "toolmgr.toml"), `${tool("hello", "1.2.3")}`);
  const stale = await u.shim(u.outside, "hello");
  assert.equal(stale.code, 1);
  assert.match(
    stale.stderr,
    /toolmgr\.lock is out of date:\n {2}hello: locked for "1\.2\.0" but toolmgr\.toml asks for "1\.2\.3"; run `toolmgr lock --global`/,
  );
  const staleExec = await u.run(u.outside, "exec", "hello");
  assert.equal(staleExec.stderr, stale.stderr);
});

test("inside a project its pin wins; a command it does not pin comes from the user toolset", async () => {
  const u = await setup();
  await writeFile(join(u.config, "toolmgr", "toolmgr.toml"), `${tool("hello", "1.2.0")}`);
  assert.equal((await u.run(u.outside, "lock", "--global")).code, 0);
  assert.equal((await u.run(u.outside, "sync", "--global")).code, 0);
  // One project pins hello itself (1.2 -> 1.2.3), another pins only duo.
  await writeFile(join(u.project, "toolmgr.toml"), `${tool("hello", "1.2")}`);
  await writeFile(join(u.other, "toolmgr.toml"), `${tool("duo", "2")}`);
  for (const dir of [u.project, u.other]) {
    assert.equal((await u.run(dir, "lock")).code, 0);
    const sync = await u.run(dir, "sync");
    assert.equal(sync.code, 0, sync.stderr);
  }
  const sub = join(u.project, "sub");
  await mkdir(sub);
  assert.equal((await u.shim(sub, "hello")).stdout, "hello 1.2.3 \n", "the project's pin");
  assert.equal((await u.run(sub, "exec", "hello")).stdout, "hello 1.2.3 \n");
  assert.match((await u.run(sub, "which", "hello")).stdout, /\/hello\/1\.2\.3-/);
  assert.equal((await u.shim(u.other, "hello")).stdout, "hello 1.2.0 \n", "the user toolset's pin");
  assert.equal((await u.run(u.other, "exec", "hello")).stdout, "hello 1.2.0 \n");
  assert.match((await u.run(u.other, "which", "hello")).stdout, /\/hello\/1\.2\.0-/);
  assert.equal((await u.shim(u.other, "duo")).stdout, "duo 2.0.0 \n");
  // Completion offers the same commands in the same order: the project's pins, then the user toolset's.
  assert.equal((await u.run(u.other, "which", "--list")).stdout, "duo\nhello\n");
  assert.equal((await u.run(u.project, "which", "--list")).stdout, "hello\n");
  assert.equal((await u.run(u.outside, "which", "--list")).stdout, "hello\n");
  const both = await u.run(u.outside, "which", "--list", "hello");
  assert.equal(both.code, 2, "--list with a command is refused, not dropped");
  assert.match(both.stderr, /Cannot look up "hello" with --list/);
  for (const shell of ["bash", "zsh", "fish", "powershell"]) {
    const script = (await u.run(u.outside, "completion", shell)).stdout;
    assert.match(script, /exec[^\n]*toolmgr which --list/, `${shell} completes exec from the pins`);
  }
  // The user toolset never changes what a project's sync installs.
  assert.deepEqual((await readdir(join(u.home, "tools"))).sort(), ["duo", "hello"]);
  // Neither pins it: the shim steps aside, which says where it looked.
  const which = await u.run(u.other, "which", "no-such-command");
  assert.equal(which.code, 1);
  assert.match(
    which.stderr,
    /it is not pinned in .*other\/toolmgr\.lock, nor in the user toolset's .*config\/toolmgr\/toolmgr\.lock/,
  );
  const aside = await u.shim(u.outside, "duo");
  assert.equal(aside.code, 127, "outside any project duo is pinned nowhere");
});

test("a user toolset without its lock is answered with lock --global by exec and which, as by the shim", async () => {
  const u = await setup();
  await writeFile(join(u.config, "toolmgr", "toolmgr.toml"), `${tool("hello", "1.2.0")}`);
  await mkdir(join(u.home, "shims"), { recursive: true });
  const lockPath = join(u.config, "toolmgr", "toolmgr.lock");
  const message = `toolmgr: Cannot find ${lockPath}: run \`toolmgr lock --global\` first\n`;
  for (const args of [
    ["exec", "hello"],
    ["which", "hello"],
  ]) {
    const r = await u.run(u.outside, ...args);
    assert.deepEqual([r.code, r.stderr], [1, message], args.join(" "));
  }
  // The shim, as sync writes it: the same words.
  await writeFile(join(u.home, "shims", "hello"), shimScript("hello", { platform: "linux/amd64" }), {
    mode: 0o755,
  });
  const viaShim = await u.shim(u.outside, "hello");
  assert.deepEqual([viaShim.code, viaShim.stderr], [1, message]);
});
