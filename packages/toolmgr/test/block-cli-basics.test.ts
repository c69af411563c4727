import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { blockProject, HELLO, startBlockHost } from "./support/block-project.js";
import type { FakeCodeHost } from "./support/fake-code-host.js";
import { runCli } from "./support/run-cli.js";
import { tempDir } from "./support/temp-dir.js";

// nao1215/block e2e/atago/cli.atago.yaml (and the usage scenarios of exec.atago.yaml, status.atago.yaml), translated:
// our command set, our registry, usage errors exit 2 (README "Exit codes").

let host: FakeCodeHost;

before(async () => {
  host = await startBlockHost();
});

after(async () => {
  await host.close();
});

/** Runs toolmgr in an empty directory with a store and config of its own and the code host unreachable. */
async function offline(...args: string[]) {
  const dir = await tempDir("toolmgr-block-cli-");
  return runCli(args, {
    cwd: dir,
    env: {
      TOOLMGR_HOME: join(dir, "home"),
      XDG_CONFIG_HOME: join(dir, "config"),
      CODEHOST_API_URL: "http://127.0.0.1:1",
    },
  });
}

test("version and --version print the same two lines; help names lock, sync, exec, list and version, not init or update", async () => {
  const version = await offline("version");
  assert.equal(version.code, 0);
  assert.match(
    version.stdout,
    /^toolmgr v\d+\.\d+\.\d+\nregistry [0-9a-f]{12} \(\d+ recipes from https:\/\/\S+\)\n$/,
  );
  assert.equal((await offline("--version")).stdout, version.stdout);

  const help = await offline("--help");
  assert.equal(help.code, 0);
  for (const command of ["lock", "sync", "exec", "list", "version"])
    assert.match(help.stdout, new RegExp(`\\n  ${command} +\\S`));
  assert.match(help.stdout, /exec .*\(never installs\)/);
  for (const removed of ["init", "update"]) {
    assert.doesNotMatch(help.stdout, new RegExp(`\\n  ${removed} `));
    const r = await offline(removed);
    assert.equal(r.code, 2, `${removed} is a usage error`);
    assert.match(r.stderr, new RegExp(`Unknown command "${removed}"`));
  }
});

test("list is offline and read-only: a tool of two ecosystems under each, case-insensitive, usage errors exit 2", async () => {
  for (const ecosystem of ["cosmos", "Celestia"]) {
    const r = await offline("list", ecosystem);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^celestia-app +\S/m);
    assert.equal(r.stderr, "");
  }
  const unknown = await offline("list", "etheruem");
  assert.equal(unknown.code, 2);
  assert.match(
    unknown.stderr,
    /Cannot list ecosystem "etheruem": the registry has no such ecosystem; choose one of .*ethereum/,
  );
  assert.equal(unknown.stdout, "");
  const two = await offline("list", "ethereum", "solana");
  assert.equal(two.code, 2);
  assert.match(two.stderr, /Too many arguments for `toolmgr list`/);
  assert.equal((await offline("list", "--installed")).code, 2);
});

test("list never shows a project's own tools", async () => {
  const p = await blockProject(host, HELLO);
  for (const args of [["list"], ["list", "ethereum"], ["list", "--json"]]) {
    const r = await p.run(...args);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /hello/);
  }
});

test("without toolmgr.toml lock, sync and status say so; exec steps aside to PATH; bare exec and extra arguments are usage errors", async () => {
  for (const command of ["lock", "sync", "status"]) {
    const r = await offline(command);
    assert.equal(r.code, 1, command);
    assert.match(r.stderr, /^toolmgr: Cannot find toolmgr\.toml in ".*" or any parent directory/);
  }
  const exec = await offline("exec", "forge", "--version");
  assert.equal(exec.code, 127);
  assert.match(exec.stderr, /cannot run "forge": not found on PATH/);

  const bare = await offline("exec");
  assert.equal(bare.code, 2);
  assert.match(bare.stderr, /Cannot exec: name a command/);
  const help = await offline("exec", "--help");
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Usage: toolmgr exec <command> \[args\.\.\.\]/);
  const status = await offline("status", "foundry");
  assert.equal(status.code, 2);
  assert.match(status.stderr, /Too many arguments for `toolmgr status`/);
});
