import assert from "node:assert/strict";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { buildArtifact } from "./support/archives.js";
import { blockProject, startBlockHost } from "./support/block-project.js";
import type { FakeCodeHost } from "./support/fake-code-host.js";

// Issue 31 item 1: versions as upstreams tag them. Bitcoin Core tags `v29.0`, `v28.1` (two components, since 2022)
// and pre-releases `v29.1rc1` (no hyphen); nao1215/block internal/version/version.go accepts both, and its
// e2e/atago/artifacts.atago.yaml locks `quirky = "29"` to `29.4` with the spelling kept in the URL.

let host: FakeCodeHost;
const TAGS = ["27.2", "28.0", "28.1", "29.0", "29.1rc1"];

before(async () => {
  host = await startBlockHost();
  host.addRepo("acme/coin");
  for (const version of TAGS) {
    host.addRelease("acme/coin", {
      tag: `v${version}`,
      // Bitcoin publishes its rcs as plain tags: the suffix alone must make it a pre-release.
      prerelease: false,
      assets: [
        {
          name: `coin-${version}-x86_64-linux-gnu.tar.gz`,
          data: await buildArtifact("tar.gz", { name: "coind", version, wrap: `coin-${version}` }),
        },
      ],
    });
  }
  host.setTag("acme/coin", "nightly", { commit: "moving" });
});

after(async () => {
  await host.close();
});

const coin = (constraint: string) => `platforms = ["linux/amd64"]
[tools.coin]
version = "${constraint}"
[tools.coin.source]
type = "github_release"
repo = "acme/coin"
asset = "coin-{version}-{target}.tar.gz"
strip_components = 1
bin = ["coind"]
[tools.coin.source.target]
"linux/amd64" = "x86_64-linux-gnu"
`;

test("a Bitcoin-style tag list locks 29 to 29.0, 28 to 28.1, 29.0.0 to 29.0, and never the rc", async () => {
  for (const [constraint, expected] of [
    ["29", "29.0"],
    ["29.0", "29.0"],
    ["29.0.0", "29.0"],
    ["28", "28.1"],
    ["28.0", "28.0"],
    ["27", "27.2"],
  ] as const) {
    const p = await blockProject(host, coin(constraint));
    const lock = await p.run("lock");
    assert.equal(
      lock.stdout,
      `coin  locked ${expected}\nwrote toolmgr.lock\n`,
      `${constraint}: ${lock.stderr}`,
    );
    const text = await readFile(join(p.dir, "toolmgr.lock"), "utf8");
    assert.match(text, new RegExp(`version = "${expected.replace(".", "\\.")}"`));
    // The spelling the upstream wrote is the URL's, not 29.0.0.
    assert.match(text, new RegExp(`/v${expected}/coin-${expected}-x86_64-linux-gnu\\.tar\\.gz`));
  }
  const none = await blockProject(host, coin("29.1"));
  const refused = await none.run("lock");
  assert.equal(refused.code, 1, "29.1 has only an rc, which a prefix never chooses");
  assert.match(refused.stderr, /no published stable release of "acme\/coin" matches/);
  assert.equal((await none.run("lock", "--check")).code, 1);
});

test("a two-component pin syncs into the store under its spelling, and shims and exec accept it", async () => {
  const p = await blockProject(host, coin("29.0.0"));
  assert.equal((await p.run("lock")).code, 0);
  const sync = await p.run("sync");
  assert.equal(sync.code, 0, sync.stderr);
  assert.match(sync.stdout, /coin {2}installed 29\.0\n/);
  const installs = await readdir(join(p.home, "tools", "coin"));
  assert.equal(installs.length, 1);
  assert.match(installs[0] ?? "", /^29\.0-[0-9a-f]{12}$/);
  // The shim's awk and status decide "29.0.0 allows 29.0" as constraint.ts does.
  assert.equal((await p.shim("coind")).stdout, "coind 29.0 \n");
  assert.equal((await p.run("exec", "coind")).stdout, "coind 29.0 \n");
  assert.equal((await p.run("status")).code, 0);
  // A hand edit to the rc is a pin the constraint does not allow: refused by the shim and sync alike.
  const lockPath = join(p.dir, "toolmgr.lock");
  await writeFile(
    lockPath,
    (await readFile(lockPath, "utf8")).replace('version = "29.0"', 'version = "29.1rc1"'),
  );
  const shim = await p.shim("coind");
  assert.equal(shim.code, 1);
  assert.match(shim.stderr, /pinned to "29\.1rc1", which "29\.0\.0" does not allow/);
  assert.equal((await p.run("sync")).code, 1);
});

test("an http source over the same tags (bitcoin-core's recipe shape) picks the newest two-component tag", async () => {
  const web = new URL(host.browserUrl("acme/coin", "v29.0", "x")).origin;
  const p = await blockProject(
    host,
    `platforms = ["linux/amd64"]
[tools.coin]
version = "29"
[tools.coin.source]
type = "http"
repo = "acme/coin"
url = "${web}/acme/coin/releases/download/v{version}/coin-{version}-{target}.tar.gz"
strip_components = 1
bin = ["coind"]
[tools.coin.source.target]
"linux/amd64" = "x86_64-linux-gnu"
`,
  );
  const lock = await p.run("lock");
  assert.equal(lock.stdout, "coin  locked 29.0\nwrote toolmgr.lock\n", lock.stderr);
  assert.equal((await p.run("sync")).code, 0);
  assert.equal((await p.shim("coind")).stdout, "coind 29.0 \n");
});
