import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { buildArtifact } from "./support/archives.js";
import { startBlockHost } from "./support/block-project.js";
import { type FakeCodeHost, sha256 } from "./support/fake-code-host.js";
import { runCli, TOOLMGR_BIN } from "./support/run-cli.js";
import { addDuo, type SharedStore, sharedStore, toolsToml } from "./support/shared-store.js";
import { treeSnapshot } from "./support/tree-snapshot.js";

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

/** `cache/http/<sha256 of the project file's path>.json`: a project's remembered API answers (`lock`). */
const answersOf = (projectFile: string) =>
  `cache/http/${createHash("sha256").update(projectFile).digest("hex")}.json`;

/**
 * Adds `acme/<name>` v1.0.0 whose assets (linux/amd64, darwin/arm64) have no host digest: `lock` downloads each it
 * locks to compute its sha256. Returns the linux/amd64 digest, then the darwin/arm64 one.
 */
async function addUndigested(name: string): Promise<[string, string]> {
  const linux = await buildArtifact("tar.gz", { name, version: "1.0.0" });
  const darwin = await buildArtifact("tar.gz", { name, version: "1.0.0-darwin" });
  host.addRepo(`acme/${name}`);
  host.addRelease(`acme/${name}`, {
    tag: "v1.0.0",
    assets: [
      { name: `${name}_1.0.0_linux_amd64.tar.gz`, data: linux, digest: false },
      { name: `${name}_1.0.0_darwin_arm64.tar.gz`, data: darwin, digest: false },
    ],
  });
  return [sha256(linux), sha256(darwin)];
}

/** Starts the CLI as its own process; `stderr` grows as it writes. */
function start(s: SharedStore, cwd: string, args: string[]) {
  const child: ChildProcess = spawn(process.execPath, [TOOLMGR_BIN, ...args], {
    cwd,
    env: { ...process.env, ...s.env },
  });
  const out = { stdout: "", stderr: "" };
  child.stdout?.on("data", (c: Buffer) => {
    out.stdout += c.toString();
  });
  child.stderr?.on("data", (c: Buffer) => {
    out.stderr += c.toString();
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, ...out })),
  );
  return { child, out, done };
}

/** Polls `ready` every 20 ms until it holds; fails after `ms` with `what`. */
async function until(ready: () => boolean | Promise<boolean>, what: () => string, ms = 15_000) {
  const deadline = Date.now() + ms;
  while (!(await ready())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting: ${what()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

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

  const tree = await treeSnapshot(s.home);
  const dry = await s.run(s.root, "prune", "--dry-run");
  assert.equal(dry.code, 0, dry.stderr);
  const lines = dry.stdout.trimEnd().split("\n");
  assert.deepEqual(
    lines.map((l) => l.replace(/ {2}[\d.]+ k?B$/, "")),
    [
      // The remembered API answers of the two projects that are gone (the second lost its lock).
      ...[answersOf(join(deleted, "toolmgr.toml")), answersOf(join(lockless, "toolmgr.toml"))]
        .sort()
        .map((label) => `removed ${label}`),
      `removed cache/sha256/${oldDigest}`,
      `removed projects${deleted}`,
      `removed projects${lockless}`,
      `removed tools/hello/${old}`,
      lines.at(-1),
    ],
  );
  assert.match(lines.at(-1) ?? "", /^freed [\d.]+ kB \((\d+) bytes\)$/);
  assert.equal(dry.stderr, "toolmgr: --dry-run: nothing was removed\n");
  assert.deepEqual(
    await treeSnapshot(s.home),
    tree,
    "--dry-run changed nothing in the store, not even a marker",
  );

  const real = await s.run(s.root, "prune");
  assert.equal(real.code, 0, real.stderr);
  assert.equal(real.stdout, dry.stdout, "the same lines as --dry-run");
  const freed = Number(/\((\d+) bytes\)/.exec(real.stdout)?.[1]);
  const items = real.stdout.trimEnd().split("\n").slice(0, -1);
  assert.ok(freed > 0 && items.length === 6);
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
      const [sync, prune] = await Promise.all([
        start(s, dir, ["sync", "--quiet"]).done,
        start(s, s.root, ["prune"]).done,
      ]);
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

test("a project that was only locked keeps the artifacts its lock downloaded: prune, then sync installs from the cache", async () => {
  const s = await sharedStore(host);
  const [digest] = await addUndigested("tofu");
  const gone = await s.project("gone", { hello: "1.2.0" });
  await rm(gone, { recursive: true });
  const only = join(s.root, "only-locked");
  await mkdir(only);
  await writeFile(join(only, "toolmgr.toml"), toolsToml({ tofu: "1", hello: "1.2" }));
  const lock = await s.run(only, "lock");
  assert.equal(lock.code, 0, lock.stderr);
  assert.match(lock.stderr, /^downloaded tofu \(.*\) to compute its sha256\n$/);
  // `lock` records the project as `sync` does: the same files, so `prune` knows it.
  assert.equal(
    await readFile(join(s.home, "projects", only, "toolmgr.lock"), "utf8"),
    await readFile(join(only, "toolmgr.lock"), "utf8"),
  );
  // With the record the shims still refuse what is not installed: hello's shim (the gone project's sync wrote it)
  // says to sync, as before the record (there through `toolmgr exec`: these sources are project-local).
  const shim = await s.shim(only, "hello");
  assert.equal(shim.code, 1);
  assert.match(shim.stderr, /hello.* 1\.2\.3 /);
  assert.match(shim.stderr, /not installed/);
  assert.match(shim.stderr, /run `toolmgr sync`/);

  const prune = await s.run(s.root, "prune");
  assert.equal(prune.code, 0, prune.stderr);
  assert.match(prune.stdout, /^removed projects.*\/gone {2}/m, "the deleted project's record goes");
  assert.doesNotMatch(prune.stdout, new RegExp(digest), "the only-locked project's artifact stays");
  assert.doesNotMatch(prune.stdout, /only-locked/);
  assert.ok(existsSync(join(s.home, "cache", "sha256", digest)));

  // The next sync needs no download: the code host is not asked for the artifact again.
  const downloads = host.count("web:/acme/tofu/");
  const sync = await s.run(only, "sync");
  assert.equal(sync.code, 0, sync.stderr);
  assert.match(sync.stdout, /^tofu +installed 1\.0\.0\n/m);
  assert.doesNotMatch(sync.stderr, /downloaded tofu/);
  assert.equal(host.count("web:/acme/tofu/"), downloads);
  assert.equal((await s.shim(only, "tofu")).stdout, "tofu 1.0.0 \n");
});

test("a prune beside a lock of a new project never removes what that lock downloads and pins", async () => {
  const s = await sharedStore(host);
  let previous = await s.project("round-0", { hello: "1.2.0" });
  for (let round = 1; round <= 3; round++) {
    // A tool whose artifact the lock downloads (no host digest), and hello, whose answers are held until the prune
    // has started: the lock is then half-way, its download in the cache and its project not yet recorded.
    const name = `quick${round}`;
    const [digest] = await addUndigested(name);
    const dir = join(s.root, `round-${round}`);
    await mkdir(dir);
    await writeFile(join(dir, "toolmgr.toml"), toolsToml({ [name]: "1", hello: "1.2.0" }));
    // The last round's project is gone: nothing of it protects anything.
    await rm(previous, { recursive: true });
    const release = host.hold("/repos/acme/hello/");
    let lock: ReturnType<typeof start> | undefined;
    let prune: ReturnType<typeof start> | undefined;
    try {
      lock = start(s, dir, ["lock"]);
      const cached = join(s.home, "cache", "sha256", digest);
      await until(
        () => existsSync(cached),
        () => `round ${round}: ${name}'s download (lock: ${lock?.out.stderr})`,
      );
      prune = start(s, s.root, ["prune"]);
      let pruneEnded = false;
      void prune.done.then(() => {
        pruneEnded = true;
      });
      // Either the prune waits for the lock (it says so) or it does not wait at all.
      await until(
        () => pruneEnded || (prune?.out.stderr.includes("toolmgr: waiting: ") ?? false),
        () => `round ${round}: the prune to wait or end (prune: ${prune?.out.stderr})`,
      );
    } finally {
      release();
    }
    const [locked, pruned] = await Promise.all([lock.done, prune.done]);
    assert.equal(locked.code, 0, `round ${round}: ${locked.stderr}`);
    assert.equal(pruned.code, 0, `round ${round}: ${pruned.stderr}`);
    assert.doesNotMatch(pruned.stdout, new RegExp(`${digest}|${name}`), `round ${round}`);
    // Everything the new lock pins that the lock put in the cache is still there.
    const text = await readFile(join(dir, "toolmgr.lock"), "utf8");
    assert.ok(text.includes(digest), `round ${round}: the lock pins ${name}'s artifact`);
    assert.ok(existsSync(join(s.home, "cache", "sha256", digest)), `round ${round}: ${name}'s artifact`);
    const downloads = host.count(`web:/acme/${name}/`);
    const sync = await s.run(dir, "sync");
    assert.equal(sync.code, 0, `round ${round}: ${sync.stderr}`);
    assert.equal(host.count(`web:/acme/${name}/`), downloads, `round ${round}: ${name} from the cache`);
    // It did so by waiting for the lock, which announced itself before its first download.
    assert.match(pruned.stderr, /^toolmgr: waiting: 1 sync or lock of this store running\n$/);
    previous = dir;
  }
});

test("prune removes the remembered API answers of projects that are gone and keeps the live ones'", async () => {
  const s = await sharedStore(host);
  const kept = await s.project("kept", { hello: "1.2" });
  const gone = await s.project("gone", { duo: "2" });
  await mkdir(join(s.config, "toolmgr"), { recursive: true });
  const userToolset = join(s.config, "toolmgr", "toolmgr.toml");
  await writeFile(userToolset, toolsToml({ duo: "2" }));
  assert.equal((await s.run(s.root, "lock", "--global")).code, 0);
  const http = async () =>
    (await readdir(join(s.home, "cache", "http"))).map((n) => `cache/http/${n}`).sort();
  const keptAnswers = answersOf(join(kept, "toolmgr.toml"));
  const goneAnswers = answersOf(join(gone, "toolmgr.toml"));
  const userAnswers = answersOf(userToolset);
  assert.deepEqual(await http(), [keptAnswers, goneAnswers, userAnswers].sort());
  await rm(gone, { recursive: true });
  // What goes: the gone project's answers and its record; its duo install stays (the user toolset pins it).
  const record = join(s.home, "projects", gone);
  let expected = (await stat(join(s.home, goneAnswers))).size;
  for (const name of await readdir(record)) expected += (await stat(join(record, name))).size;

  const tree = await treeSnapshot(s.home);
  const dry = await s.run(s.root, "prune", "--dry-run");
  assert.equal(dry.code, 0, dry.stderr);
  assert.deepEqual(await treeSnapshot(s.home), tree, "--dry-run removed nothing");
  const real = await s.run(s.root, "prune");
  assert.equal(real.code, 0, real.stderr);
  assert.equal(real.stdout, dry.stdout);
  const lines = real.stdout.trimEnd().split("\n");
  assert.equal(lines.length, 3, real.stdout);
  assert.match(lines[0] ?? "", new RegExp(`^removed ${goneAnswers.replaceAll(".", "\\.")} {2}[\\d.]+ k?B$`));
  assert.match(lines[1] ?? "", new RegExp(`^removed projects${gone} {2}[\\d.]+ k?B$`));
  assert.equal(lines[2]?.replace(/^freed .* \((\d+) bytes\)$/, "$1"), String(expected));
  assert.deepEqual(await http(), [keptAnswers, userAnswers].sort());

  // The live ones are still used: a re-lock asks with their ETags and gets 304s.
  const before = [...host.notModified.values()].reduce((a, b) => a + b, 0);
  assert.equal((await s.run(kept, "lock", "hello")).code, 0);
  assert.equal((await s.run(s.root, "lock", "--global", "duo")).code, 0);
  const after = [...host.notModified.values()].reduce((a, b) => a + b, 0);
  assert.ok(after >= before + 2, `304s: ${before} -> ${after}`);
});

test("a second prune of one store exits 1 and removes nothing; --dry-run still answers", async () => {
  const s = await sharedStore(host);
  const gone = await s.project("gone", { hello: "1.2.0" });
  await rm(gone, { recursive: true });
  // A prune marker of a process that runs (this one): the store is being pruned.
  await mkdir(join(s.home, "activity"), { recursive: true });
  await writeFile(join(s.home, "activity", "prune"), `${process.pid}\n`);
  const tree = await treeSnapshot(s.home);
  const r = await s.run(s.root, "prune");
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "");
  assert.equal(
    r.stderr,
    `toolmgr: Cannot prune "${s.home}": another \`toolmgr prune\` is running (${join(s.home, "activity", "prune")})\n`,
  );
  assert.deepEqual(await treeSnapshot(s.home), tree);
  const dry = await s.run(s.root, "prune", "--dry-run");
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /^removed projects.*\/gone {2}/m);
  // A marker whose process is gone is ignored.
  await writeFile(join(s.home, "activity", "prune"), "2147483646\n");
  const real = await s.run(s.root, "prune");
  assert.equal(real.code, 0, real.stderr);
  assert.equal(real.stdout, dry.stdout);
});

test("a lock that is not for this platform is recorded without shim answers, and prune keeps what it pins", async () => {
  const s = await sharedStore(host);
  const [linux, darwin] = await addUndigested("mac");
  const dir = join(s.root, "elsewhere");
  await mkdir(dir);
  const record = join(s.home, "projects", dir);
  // First for this machine too: the record has the shims' answers.
  const both = toolsToml({ mac: "1" }).replace('"linux/amd64"', '"darwin/arm64", "linux/amd64"');
  await writeFile(join(dir, "toolmgr.toml"), both);
  assert.equal((await s.run(dir, "lock")).code, 0);
  assert.match(await readFile(join(record, "shim-answers"), "utf8"), /^linux\/amd64\nmac\tmac\t1\.0\.0-/);
  // Then for darwin/arm64 only: answers for this machine no longer hold, and none pair with the new copies.
  await writeFile(join(dir, "toolmgr.toml"), toolsToml({ mac: "1" }).replace("linux/amd64", "darwin/arm64"));
  const lock = await s.run(dir, "lock");
  assert.equal(lock.code, 0, lock.stderr);
  assert.equal(existsSync(join(record, "shim-answers")), false);
  assert.equal(
    await readFile(join(record, "toolmgr.lock"), "utf8"),
    await readFile(join(dir, "toolmgr.lock"), "utf8"),
  );
  assert.ok(existsSync(join(s.home, "cache", "sha256", darwin)));
  const prune = await s.run(s.root, "prune");
  assert.equal(prune.code, 0, prune.stderr);
  // The linux artifact is no longer pinned by anything; the darwin one is.
  assert.equal(prune.stdout.split("\n")[0]?.replace(/ {2}.*$/, ""), `removed cache/sha256/${linux}`);
  assert.ok(existsSync(join(s.home, "cache", "sha256", darwin)));
});
