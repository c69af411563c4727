import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { blockProject, HELLO, startBlockHost } from "./support/block-project.js";
import type { FakeCodeHost } from "./support/fake-code-host.js";

// `status` answers like `lock --check`: 0 when every tool is installed and current, 3 when anything is missing,
// stale or damaged, 1 on an error; the report stays on stdout (nao1215/block e2e/atago/status.atago.yaml).

let host: FakeCodeHost;

before(async () => {
  host = await startBlockHost();
});

after(async () => {
  await host.close();
});

test("status exits 0 when every tool is installed and current, 3 when one is missing or stale, 1 without a lock", async () => {
  const p = await blockProject(host, HELLO);
  const never = await p.run("status");
  assert.equal(never.code, 1);
  assert.match(never.stderr, /toolmgr\.lock: run `?toolmgr lock`? first/);
  assert.equal((await p.run("lock")).code, 0);
  const missing = await p.run("status");
  assert.equal(missing.code, 3);
  assert.match(missing.stdout, /^hello +1\.2 +1\.2\.3 +not installed/);
  const missingJson = await p.run("status", "--json");
  assert.equal(missingJson.code, 3);
  assert.equal((JSON.parse(missingJson.stdout) as { installed: boolean }[])[0]?.installed, false);
  assert.equal((await p.run("sync")).code, 0);
  const current = await p.run("status");
  assert.equal(current.code, 0);
  assert.match(current.stdout, /^hello +1\.2 +1\.2\.3 +installed\n$/);
  await writeFile(join(p.dir, "toolmgr.toml"), HELLO.replace('version = "1.2"', 'version = "1.2.0"'));
  const stale = await p.run("status", "--json");
  assert.equal(stale.code, 3);
  assert.equal((JSON.parse(stale.stdout) as { stale: boolean }[])[0]?.stale, true);
});
