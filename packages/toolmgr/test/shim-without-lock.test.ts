import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { blockProject, HELLO, startBlockHost } from "./support/block-project.js";
import type { FakeCodeHost } from "./support/fake-code-host.js";

// A shim in a project that has a toolmgr.toml but no lock refuses; it never runs a tool pinned by another project
// (nao1215/block e2e/atago/shim.atago.yaml).

let host: FakeCodeHost;

before(async () => {
  host = await startBlockHost();
});

after(async () => {
  await host.close();
});

test("a shim in a project with a toolmgr.toml but no lock refuses, naming toolmgr lock, and never runs a parent's pin", async () => {
  const p = await blockProject(host, HELLO);
  assert.equal((await p.run("lock")).code, 0);
  assert.equal((await p.run("sync")).code, 0);
  const child = join(p.dir, "child");
  await mkdir(child);
  await writeFile(join(child, "toolmgr.toml"), HELLO);
  const r = await p.shim("hello", { cwd: child });
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, /toolmgr\.lock: run `toolmgr lock` first/);
});
