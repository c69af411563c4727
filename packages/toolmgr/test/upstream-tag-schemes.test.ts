import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { buildArtifact, fakeTool } from "./support/archives.js";
import { blockProject, startBlockHost } from "./support/block-project.js";
import type { FakeCodeHost } from "./support/fake-code-host.js";
import { writeTar } from "./support/tar-writer.js";

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

/** A `github_release` tool whose asset is `<name>-{version}-{target}.tar.gz`, one linux/amd64 target. */
const releaseToml = (o: { repo: string; name: string; bin: string; constraint: string; tagPrefix: string }) =>
  `platforms = ["linux/amd64"]
[tools.${o.name}]
version = "${o.constraint}"
[tools.${o.name}.source]
type = "github_release"
repo = "${o.repo}"
tag_prefix = "${o.tagPrefix}"
asset = "${o.name}-{version}-{target}.tar.gz"
strip_components = 1
bin = ["${o.bin}"]
[tools.${o.name}.source.target]
"linux/amd64" = "x86_64-linux-gnu"
`;

const coin = (constraint: string) =>
  releaseToml({ repo: "acme/coin", name: "coin", bin: "coind", constraint, tagPrefix: "v" });

/** An `http` source over the fake's web origin, as bitcoin-core's recipe and block's quirky fixture are shaped. */
function httpToml(options: {
  repo: string;
  name: string;
  file: string;
  bin: string;
  platforms: string;
  targets: Record<string, string>;
}): string {
  const web = new URL(host.browserUrl(options.repo, "v0", "x")).origin;
  return `${options.platforms}
[tools.${options.name}]
version = "29"
[tools.${options.name}.source]
type = "http"
repo = "${options.repo}"
url = "${web}/${options.repo}/releases/download/v{version}/${options.file}-{version}-{target}.tar.gz"
strip_components = 1
bin = ["${options.bin}"]
[tools.${options.name}.source.target]
${Object.entries(options.targets)
  .map(([p, t]) => `"${p}" = "${t}"`)
  .join("\n")}
`;
}

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
  // The moving tag moves; prefixes never see it (matching-refs of "v29" cannot list "nightly"), and pins stay put.
  host.setTag("acme/coin", "nightly", { commit: "moved" });
  const again = await blockProject(host, coin("29"));
  assert.equal((await again.run("lock")).stdout, "coin  locked 29.0\nwrote toolmgr.lock\n");
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
  const p = await blockProject(
    host,
    httpToml({
      repo: "acme/coin",
      name: "coin",
      file: "coin",
      bin: "coind",
      platforms: 'platforms = ["linux/amd64"]',
      targets: { "linux/amd64": "x86_64-linux-gnu" },
    }),
  );
  const lock = await p.run("lock");
  assert.equal(lock.stdout, "coin  locked 29.0\nwrote toolmgr.lock\n", lock.stderr);
  assert.equal((await p.run("sync")).code, 0);
  assert.equal((await p.shim("coind")).stdout, "coind 29.0 \n");
});

// nao1215/block e2e/atago/artifacts.atago.yaml, "an upstream whose platform strings are not os and arch uses a target
// map" and "a tool from a target map installs and runs on this machine": internal/fakegh tags example/quirky `v29.4`
// (two components) and serves `quirky-29.4-<target>.tar.gz` holding `quirky-29.4/bin/quirkyd`.
const QUIRKY_TARGETS = {
  "linux/amd64": "x86_64-linux-gnu",
  "linux/arm64": "aarch64-linux-gnu",
  "darwin/amd64": "x86_64-apple-darwin",
  "darwin/arm64": "arm64-apple-darwin",
  "windows/amd64": "win64",
  "windows/arm64": "win64-arm",
};

function quirky(platforms: string, targets: Record<string, string> = QUIRKY_TARGETS) {
  return blockProject(
    host,
    httpToml({
      repo: "example/quirky",
      name: "quirky",
      file: "quirky",
      bin: "bin/quirkyd",
      platforms,
      targets,
    }),
  );
}

test("block's quirky scenarios: a target map locks v29.4 as 29.4 per platform, installs and runs it", async () => {
  host.addRepo("example/quirky");
  host.addRelease("example/quirky", {
    tag: "v29.4",
    assets: Object.values(QUIRKY_TARGETS).map((target) => ({
      name: `quirky-29.4-${target}.tar.gz`,
      data: writeTar(
        [
          { name: "quirky-29.4/", type: "directory" as const },
          { name: "quirky-29.4/bin/", type: "directory" as const },
          { name: "quirky-29.4/bin/quirkyd", content: fakeTool("quirkyd", "29.4"), mode: 0o755 },
        ],
        { gzip: true },
      ),
    })),
  });
  const named = await quirky('platforms = ["linux/amd64", "darwin/arm64"]');
  const lock = await named.run("lock");
  assert.equal(lock.code, 0, lock.stderr);
  assert.match(lock.stdout, /quirky {2}locked 29\.4\n/);
  const text = await readFile(join(named.dir, "toolmgr.lock"), "utf8");
  assert.match(text, /\/v29\.4\/quirky-29\.4-x86_64-linux-gnu\.tar\.gz"/);
  assert.match(text, /\/v29\.4\/quirky-29\.4-arm64-apple-darwin\.tar\.gz"/);

  const here = await quirky("");
  const both = await here.run("lock");
  assert.equal(both.code, 0, both.stderr);
  const sync = await here.run("sync");
  assert.equal(sync.code, 0, sync.stderr);
  assert.match(sync.stdout, /quirky {2}installed 29\.4\n/);
  assert.match(sync.stdout, /shims: quirkyd\n/);
  assert.equal((await here.run("exec", "quirkyd", "-version")).stdout, "quirkyd 29.4 -version\n");

  // "a platform the target map does not cover is refused at lock time": the release is found (29.4), the platform
  // is what is refused, and nothing is written.
  const other = await quirky('platforms = ["linux/amd64"]', { "darwin/arm64": "some-other-platform" });
  const refused = await other.run("lock");
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /^toolmgr: .*quirky.*linux\/amd64/);
  assert.doesNotMatch(refused.stderr, /no published stable release/);
  assert.equal(existsSync(join(other.dir, "toolmgr.lock")), false);
});

// Tag lists as the registry's upstreams really write them (read from their repositories' tags):
// grandinetech/grandine tags releases bare (`2.0.0`) and release candidates with a dot (`2.0.0.rc1`), which is no
// version to our rules; vyperlang/vyper tags rcs and alphas with a bare suffix (`v0.4.3rc1`, `v0.5.0a1`); btcsuite/btcd
// tagged releases up to `v0.22.0-beta` with a hyphenated suffix and rcs `-beta.rc1`. None of these is ever chosen.
async function upstreamTags(repo: string, tags: readonly string[]): Promise<void> {
  for (const tag of tags) {
    const version = tag.replace(/^v/, "");
    host.addRelease(repo, {
      tag,
      prerelease: false,
      assets: [
        {
          name: `tool-${version}-x86_64-linux-gnu.tar.gz`,
          data: await buildArtifact("tar.gz", { name: "toold", version, wrap: `tool-${version}` }),
        },
      ],
    });
  }
}

const upstreamTool = (repo: string, constraint: string, tagPrefix: string) =>
  releaseToml({ repo, name: "tool", bin: "toold", constraint, tagPrefix });

test("real upstream tag lists: grandine's dotted rcs, vyper's bare rc and alpha, btcd's -beta tags are never chosen", async () => {
  for (const repo of ["grandinetech/grandine", "vyperlang/vyper", "btcsuite/btcd"]) host.addRepo(repo);
  await upstreamTags("grandinetech/grandine", ["1.1.5", "2.0.0.rc0", "2.0.0.rc1"]);
  await upstreamTags("vyperlang/vyper", ["v0.4.2", "v0.4.3rc1", "v0.4.3", "v0.5.0a1", "v0.5.0a3"]);
  await upstreamTags("btcsuite/btcd", [
    "v0.21.0-beta",
    "v0.22.0-beta",
    "v0.22.1",
    "v0.26.0",
    "v0.26.1-beta.rc1",
  ]);
  for (const [repo, prefix, constraint, expected] of [
    ["grandinetech/grandine", "", "1", "1.1.5"],
    ["grandinetech/grandine", "", "2", undefined],
    ["vyperlang/vyper", "v", "0.4", "0.4.3"],
    ["vyperlang/vyper", "v", "0.5", undefined],
    ["btcsuite/btcd", "v", "0.26", "0.26.0"],
    ["btcsuite/btcd", "v", "0.22", "0.22.1"],
    ["btcsuite/btcd", "v", "0.21", undefined],
  ] as const) {
    const p = await blockProject(host, upstreamTool(repo, constraint, prefix));
    const lock = await p.run("lock");
    if (expected === undefined) {
      assert.equal(lock.code, 1, `${repo} ${constraint}: ${lock.stdout}`);
      assert.match(lock.stderr, new RegExp(`no published stable release of "${repo}" matches`));
    } else {
      assert.equal(
        lock.stdout,
        `tool  locked ${expected}\nwrote toolmgr.lock\n`,
        `${repo} ${constraint}: ${lock.stderr}`,
      );
    }
  }
  // Once grandine tags 2.0.0 itself, "2" locks it, never an rc spelled after it.
  await upstreamTags("grandinetech/grandine", ["2.0.0"]);
  const p = await blockProject(host, upstreamTool("grandinetech/grandine", "2", ""));
  assert.equal((await p.run("lock")).stdout, "tool  locked 2.0.0\nwrote toolmgr.lock\n");
});
