import assert from "node:assert/strict";
import { mkdir, readdir, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { blockProject, HELLO, startBlockHost } from "./support/block-project.js";
import type { FakeCodeHost } from "./support/fake-code-host.js";
import { treeSnapshot } from "./support/tree-snapshot.js";

// Nothing is written when nothing changed: a second `sync`, an `exec` or a shim call leaves every file of the
// project and the store as it was; a `sync` clears the leftovers of an interrupted run and nothing else
// (nao1215/block e2e/atago/sync.atago.yaml, "a second sync is served from the store and touches nothing",
// "sync clears the leftovers of an interrupted run and nothing else").

let host: FakeCodeHost;

before(async () => {
  host = await startBlockHost();
});

after(async () => {
  await host.close();
});

test("a second sync, an exec and a shim call write no file anywhere", async () => {
  const p = await blockProject(host, HELLO);
  assert.equal((await p.run("lock")).code, 0);
  assert.equal((await p.run("sync")).code, 0);
  // One shim call and one exec first: the first ones may record the project for the shims.
  assert.equal((await p.shim("hello")).code, 0);
  assert.equal((await p.run("exec", "hello")).code, 0);
  const before = await treeSnapshot(p.dir);
  // mtimes have a granularity: make a rewrite within the same tick visible all the same.
  await new Promise((r) => setTimeout(r, 20));
  const again = await p.run("sync");
  assert.equal(again.code, 0);
  assert.match(again.stdout, /^hello {2}present 1\.2\.3\n/);
  assert.equal((await p.run("exec", "hello", "x")).stdout, "hello 1.2.3 x\n");
  assert.equal((await p.shim("hello", { args: ["y"] })).stdout, "hello 1.2.3 y\n");
  assert.equal((await p.run("status")).code, 0);
  assert.deepEqual(await treeSnapshot(p.dir), before);
});

test("sync clears the leftovers of an interrupted run and nothing else", async () => {
  const p = await blockProject(host, HELLO);
  assert.equal((await p.run("lock")).code, 0);
  assert.equal((await p.run("sync")).code, 0);
  const tools = join(p.home, "tools", "hello");
  const [install] = (await readdir(tools)).filter((n) => !n.startsWith("."));
  assert.ok(install);
  const paths = {
    oldUnpack: join(tools, `.${install}.tmp-old`),
    newUnpack: join(tools, `.${install}.tmp-new`),
    oldDownload: join(p.home, "cache", ".download-old"),
    newDownload: join(p.home, "cache", ".download-new"),
    // Remembered API answers a killed `lock` was writing (replace-file.ts's temporary name).
    oldAnswers: join(p.home, "cache", "http", ".tmp-0123456789abcdef"),
    newAnswers: join(p.home, "cache", "http", ".tmp-fedcba9876543210"),
  };
  for (const dir of [paths.oldUnpack, paths.newUnpack]) {
    await mkdir(join(dir, "bin"), { recursive: true });
    await writeFile(join(dir, "bin", "hello"), "partial\n");
  }
  await writeFile(paths.oldDownload, "partial\n");
  await writeFile(paths.newDownload, "partial\n");
  await mkdir(join(p.home, "cache", "http"), { recursive: true });
  await writeFile(paths.oldAnswers, "{");
  await writeFile(paths.newAnswers, "{");
  const past = new Date("2020-01-01T00:00:00Z");
  await utimes(paths.oldUnpack, past, past);
  await utimes(paths.oldDownload, past, past);
  await utimes(paths.oldAnswers, past, past);
  const sync = await p.run("sync");
  assert.equal(sync.code, 0, sync.stderr);
  const exists = (path: string) =>
    stat(path).then(
      () => true,
      () => false,
    );
  assert.equal(await exists(paths.oldUnpack), false);
  assert.equal(await exists(paths.oldDownload), false);
  assert.equal(await exists(join(paths.newUnpack, "bin", "hello")), true);
  assert.equal(await exists(paths.newDownload), true);
  assert.equal(await exists(paths.oldAnswers), false);
  assert.equal(await exists(paths.newAnswers), true);
  // The install itself, older still, is exactly what the sweep is not for.
  await utimes(join(tools, install), past, past);
  assert.equal((await p.run("sync")).code, 0);
  assert.equal((await p.run("exec", "hello")).stdout, "hello 1.2.3 \n");
});
