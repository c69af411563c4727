import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { buildArtifact } from "./support/archives.js";
import { blockProject, startBlockHost } from "./support/block-project.js";
import type { FakeCodeHost } from "./support/fake-code-host.js";
import { treeSnapshot } from "./support/tree-snapshot.js";

// Issue 31 item 4: `toolmgr outdated [--json]` (jdx/mise#2784): per tool of the nearest lock, the pinned version,
// the newest release the constraint allows, the newest stable release overall (a channel pin: the commit its tag
// points at now). Read-only, with lock's requests and remembered answers.

let host: FakeCodeHost;

const release = async (repo: string, tag: string, name: string) =>
  host.addRelease(repo, {
    tag,
    assets: [
      { name, data: await buildArtifact("tar.gz", { name: repo.split("/")[1] ?? "x", version: tag }) },
    ],
  });

before(async () => {
  host = await startBlockHost();
  host.addRepo("acme/coin");
  for (const v of ["27.2", "28.0"]) await release("acme/coin", `v${v}`, `coin-${v}-linux.tar.gz`);
  host.addRepo("acme/night");
  const first = host.setTag("acme/night", "nightly", { commit: "first build" });
  await release("acme/night", `nightly-${first}`, "night-nightly-linux-amd64.tar.gz");
});

after(async () => {
  await host.close();
});

const TOML = `platforms = ["linux/amd64"]
[tools.coin]
version = "28"
[tools.coin.source]
type = "github_release"
repo = "acme/coin"
asset = "coin-{version}-linux.tar.gz"
bin = ["coin"]

[tools.night]
version = "nightly"
[tools.night.source]
type = "github_release"
repo = "acme/night"
asset = "night-{version}-linux-amd64.tar.gz"
bin = ["night"]
[tools.night.source.channels.nightly]
asset = "night-nightly-linux-amd64.tar.gz"
`;

test("outdated shows pinned, wanted and latest (never an rc; a channel's current commit) and writes nothing", async () => {
  const p = await blockProject(host, TOML);
  const lock = await p.run("lock");
  assert.equal(lock.code, 0, lock.stderr);
  const first = /night {2}locked nightly-([0-9a-f]{40})/.exec(lock.stdout)?.[1];
  assert.ok(first);
  // Right after lock: nothing newer under the constraint, and lock's remembered answers are asked again with their
  // ETags (a 304 costs no rate limit).
  host.notModified.clear();
  const current = JSON.parse((await p.run("outdated", "--json")).stdout) as {
    pinned: string;
    wanted: string;
  }[];
  assert.deepEqual(
    current.map((r) => [r.pinned, r.wanted]),
    [
      ["28.0", "28.0"],
      [`nightly-${first}`, `nightly-${first}`],
    ],
  );
  assert.ok(host.notModified.size >= 2, `304s: ${[...host.notModified.keys()].join(", ")}`);
  // Upstream moves on: a patch under the constraint, a new major, a pre-release above it, the nightly tag moves.
  for (const v of ["28.1", "29.0", "29.1rc1"]) await release("acme/coin", `v${v}`, `coin-${v}-linux.tar.gz`);
  const moved = host.setTag("acme/night", "nightly", { commit: "second build" });
  const before = await treeSnapshot(p.dir);

  const text = await p.run("outdated");
  assert.equal(text.code, 0, text.stderr);
  const pad = (cells: string[]) =>
    cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd([7, 12, 50, 50][i] ?? 0))).join("");
  assert.equal(
    text.stdout,
    `${[
      pad(["tool", "constraint", "pinned", "wanted", "latest"]),
      pad(["coin", "28", "28.0", "28.1", "29.0"]),
      pad(["night", "nightly", `nightly-${first}`, `nightly-${moved}`, `nightly-${moved}`]),
    ].join("\n")}\n`,
  );
  const json = await p.run("outdated", "--json");
  assert.equal(json.code, 0, json.stderr);
  assert.deepEqual(JSON.parse(json.stdout), [
    { name: "coin", constraint: "28", pinned: "28.0", wanted: "28.1", latest: "29.0" },
    {
      name: "night",
      constraint: "nightly",
      pinned: `nightly-${first}`,
      wanted: `nightly-${moved}`,
      latest: `nightly-${moved}`,
    },
  ]);
  // Read-only: no file of the project or the store changed, the lock and the remembered answers included.
  assert.deepEqual(await treeSnapshot(p.dir), before);
  // The channel's tag moved before its release was published: outdated reports the commit, lock still refuses it.
  assert.match((await p.run("lock")).stderr, /the tag "nightly" moved to [0-9a-f]{12} but no release/);
});

test("outdated without a lock says to run lock; a repository without a stable release shows -", async () => {
  const p = await blockProject(host, TOML);
  const r = await p.run("outdated");
  assert.equal(r.code, 1);
  assert.match(r.stderr, /Cannot find .*toolmgr\.lock: run `toolmgr lock` first/);
  host.addRepo("acme/early");
  host.addRelease("acme/early", {
    tag: "v1.0.0-rc.1",
    prerelease: true,
    assets: [
      {
        name: "early-1.0.0-rc.1.tar.gz",
        data: await buildArtifact("tar.gz", { name: "early", version: "1" }),
      },
    ],
  });
  const early = await blockProject(
    host,
    `platforms = ["linux/amd64"]
[tools.early]
version = "1.0.0-rc.1"
[tools.early.source]
type = "github_release"
repo = "acme/early"
asset = "early-{version}.tar.gz"
bin = ["early"]
`,
  );
  assert.equal((await early.run("lock")).code, 0);
  const json = await early.run("outdated", "--json");
  assert.deepEqual(JSON.parse(json.stdout), [
    { name: "early", constraint: "1.0.0-rc.1", pinned: "1.0.0-rc.1", wanted: "1.0.0-rc.1", latest: null },
  ]);
  assert.match(
    (await early.run("outdated")).stdout,
    /\nearly +1\.0\.0-rc\.1 +1\.0\.0-rc\.1 +1\.0\.0-rc\.1 +-\n$/,
  );
});
