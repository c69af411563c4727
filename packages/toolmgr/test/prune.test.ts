import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startBlockHost } from "./support/block-project.js";
import type { FakeCodeHost } from "./support/fake-code-host.js";
import { runCli, TOOLMGR_BIN } from "./support/run-cli.js";
import { addDuo, sharedStore, toolsToml } from "./support/shared-store.js";

// Issue 31 item 3: `toolmgr prune [--dry-run]` removes what no live project (known from the store's `projects/`
// records) nor the user toolset pins, and never what a current lock pins (jdx/mise#2438 removed tools in use); a
// prune beside a sync never leaves a pinned tool half-removed or missing.

let host: FakeCodeHost;

before(async () => {
  host = await startBlockHost();
  await addDuo(host);
});

after(async () => {
  await host.close();
});

const installsOf = async (home: string, tool: string) =>
  (await readdir(join(home, "tools", tool)).catch(() => [])).sort();

test("prune keeps what a live project or the user toolset pins and removes the rest; --dry-run removes nothing", async () => {
  const s = await sharedStore(host);
  const current = await s.project("current", { hello: "1.2" });
  const deleted = await s.project("deleted", { hello: "1.2.0", duo: "2" });
  const lockless = await s.project("lockless", { hello: "1.2.0" });
  // The user toolset pins duo: it stays although the only project that pinned it is gone.
  await mkdir(join(s.config, "toolmgr"), { recursive: true });
  await writeFile(join(s.config, "toolmgr", "toolmgr.toml"), toolsToml({ duo: "2" }));
  assert.equal((await s.run(s.root, "lock", "--global")).code, 0);
  assert.equal((await s.run(s.root, "sync", "--global")).code, 0);
  await rm(deleted, { recursive: true });
  await rm(join(lockless, "toolmgr.lock"));
  const [old] = (await installsOf(s.home, "hello")).filter((n) => n.startsWith("1.2.0-"));
  assert.ok(old);
  const oldDigest = JSON.parse(
    await readFile(join(s.home, "tools", "hello", old, ".toolmgr-install"), "utf8"),
  ).sha256;

  const dry = await s.run(s.root, "prune", "--dry-run");
  assert.equal(dry.code, 0, dry.stderr);
  const lines = dry.stdout.trimEnd().split("\n");
  assert.deepEqual(
    lines.map((l) => l.replace(/ {2}[\d.]+ k?B$/, "")),
    [
      `removed cache/sha256/${oldDigest}`,
      `removed projects${deleted}`,
      `removed projects${lockless}`,
      `removed tools/hello/${old}`,
      lines.at(-1),
    ],
  );
  assert.match(lines.at(-1) ?? "", /^freed [\d.]+ kB \((\d+) bytes\)$/);
  assert.equal(dry.stderr, "toolmgr: --dry-run: nothing was removed\n");
  assert.ok(existsSync(join(s.home, "tools", "hello", old)), "--dry-run removed nothing");
  assert.equal(
    existsSync(join(s.home, "activity")),
    false,
    "--dry-run wrote no marker (and the syncs needed none)",
  );
  assert.ok(existsSync(join(s.home, "projects", deleted)));

  const real = await s.run(s.root, "prune");
  assert.equal(real.code, 0, real.stderr);
  assert.equal(real.stdout, dry.stdout, "the same lines as --dry-run");
  const freed = Number(/\((\d+) bytes\)/.exec(real.stdout)?.[1]);
  const items = real.stdout.trimEnd().split("\n").slice(0, -1);
  assert.ok(freed > 0 && items.length === 4);
  assert.equal(existsSync(join(s.home, "tools", "hello", old)), false);
  assert.equal(existsSync(join(s.home, "cache", "sha256", oldDigest)), false);
  assert.equal(existsSync(join(s.home, "projects", deleted)), false);
  assert.equal(existsSync(join(s.home, "projects", lockless)), false);
  // What is pinned is whole: the current project and the user toolset run, sync finds everything present.
  assert.equal((await s.shim(current, "hello")).stdout, "hello 1.2.3 \n");
  assert.equal((await s.shim(s.root, "duo")).stdout, "duo 2.0.0 \n");
  assert.match((await s.run(current, "sync")).stdout, /^hello {2}present 1\.2\.3\n/);
  assert.equal((await s.run(s.root, "status", "--global")).code, 0);
  // Nothing left to remove.
  assert.equal((await s.run(s.root, "prune")).stdout, "freed 0 B (0 bytes)\n");
  // A store that does not exist is not created.
  const nowhere = join(s.root, "no-store");
  const empty = await runCli(["prune"], { cwd: s.root, env: { ...s.env, TOOLMGR_HOME: nowhere } });
  assert.equal(empty.stdout, "freed 0 B (0 bytes)\n", empty.stderr);
  assert.equal(existsSync(nowhere), false);
});

test("prune removes nothing while a live project's lock cannot be read", async () => {
  const s = await sharedStore(host);
  const broken = await s.project("broken", { hello: "1.2" });
  const gone = await s.project("gone", { hello: "1.2.0" });
  await rm(gone, { recursive: true });
  await writeFile(join(broken, "toolmgr.lock"), "version = 99\n");
  const before = await installsOf(s.home, "hello");
  const r = await s.run(s.root, "prune");
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /^toolmgr: Cannot prune: .*broken\/toolmgr\.lock cannot be read \(Cannot parse lock: unsupported format version 99/,
  );
  assert.equal(r.stdout, "");
  assert.deepEqual(await installsOf(s.home, "hello"), before);
});

test("a prune beside a sync never leaves the sync's pinned tool missing", async () => {
  const s = await sharedStore(host);
  host.latencyMs = 20;
  try {
    let previous = await s.project("round-0", { hello: "1.2.0" });
    for (let round = 1; round <= 4; round++) {
      // The last round's project is gone, so its pin is unprotected: exactly what the new project's sync needs.
      const dir = join(s.root, `round-${round}`);
      await mkdir(dir);
      await writeFile(join(dir, "toolmgr.toml"), toolsToml({ hello: "1.2.0" }));
      await writeFile(join(dir, "toolmgr.lock"), await readFile(join(previous, "toolmgr.lock")));
      await rm(previous, { recursive: true });
      const start = (cwd: string, args: string[]) =>
        new Promise<{ code: number | null; stderr: string }>((resolve) => {
          const child = spawn(process.execPath, [TOOLMGR_BIN, ...args], {
            cwd,
            env: { ...process.env, ...s.env },
          });
          let stderr = "";
          child.stderr.on("data", (c: Buffer) => {
            stderr += c.toString();
          });
          child.on("close", (code) => resolve({ code, stderr }));
        });
      const [sync, prune] = await Promise.all([start(dir, ["sync", "--quiet"]), start(s.root, ["prune"])]);
      assert.equal(sync.code, 0, `round ${round}: ${sync.stderr}`);
      assert.equal(prune.code, 0, `round ${round}: ${prune.stderr}`);
      const r = await s.shim(dir, "hello");
      assert.equal(r.stdout, "hello 1.2.0 \n", `round ${round}: ${r.stderr}`);
      assert.match((await s.run(dir, "status")).stdout, /hello .* installed/);
      previous = dir;
    }
  } finally {
    host.latencyMs = 0;
  }
});
