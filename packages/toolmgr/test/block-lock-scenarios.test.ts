import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { buildArtifact } from "./support/archives.js";
import {
  type BlockProject,
  blockProject,
  blockTool,
  publishBlockTool,
  startBlockHost,
} from "./support/block-project.js";
import type { FakeCodeHost } from "./support/fake-code-host.js";

// nao1215/block e2e/atago/lock.atago.yaml, lock_check.atago.yaml, channel.atago.yaml and contract.atago.yaml,
// translated: our wording, "would change" is exit 3 (README "Exit codes").

let host: FakeCodeHost;

before(async () => {
  host = await startBlockHost();
});

after(async () => {
  await host.close();
});

const PLATFORM = 'platforms = ["linux/amd64"]\n';

async function setToml(p: BlockProject, toml: string): Promise<void> {
  await writeFile(join(p.dir, "toolmgr.toml"), toml);
}

test("lock: a no-op when nothing moved, moves every pin within its constraint, re-resolves a changed one, drops a removed tool", async () => {
  host.addRepo("acme/alpha");
  host.addRepo("acme/beta");
  await publishBlockTool(host, "alpha", "1.0.0");
  await publishBlockTool(host, "beta", "2.0.0");
  const p = await blockProject(host, PLATFORM + blockTool("alpha", "1") + blockTool("beta", "2"));
  const first = await p.run("lock");
  assert.equal(first.stdout, "alpha  locked 1.0.0\nbeta   locked 2.0.0\nwrote toolmgr.lock\n", first.stderr);
  const lockPath = join(p.dir, "toolmgr.lock");
  const before = await stat(lockPath);

  const again = await p.run("lock");
  assert.equal(again.code, 0);
  assert.equal(again.stdout, "alpha  1.0.0\nbeta   2.0.0\ntoolmgr.lock is up to date\n");
  assert.equal(again.stderr, "");
  assert.equal((await stat(lockPath)).mtimeMs, before.mtimeMs, "an up-to-date lock is not rewritten");

  await publishBlockTool(host, "alpha", "1.1.0");
  await publishBlockTool(host, "alpha", "2.0.0"); // outside "1": never taken
  await publishBlockTool(host, "beta", "2.0.1");
  const check = await p.run("lock", "--check");
  assert.equal(check.code, 3);
  assert.equal(check.stdout, "alpha  1.0.0 -> 1.1.0\nbeta   2.0.0 -> 2.0.1\n");
  assert.equal((await stat(lockPath)).mtimeMs, before.mtimeMs, "--check writes nothing");
  const moved = await p.run("lock");
  assert.equal(moved.stdout, "alpha  1.0.0 -> 1.1.0\nbeta   2.0.0 -> 2.0.1\nwrote toolmgr.lock\n");

  // lock_check.atago.yaml "the manifest changed since the lock": a changed constraint and a removed tool.
  await setToml(p, PLATFORM + blockTool("alpha", "1.0"));
  const changed = await p.run("lock", "--check");
  assert.equal(changed.code, 3);
  assert.equal(changed.stdout, "alpha  1.1.0 -> 1.0.0\nbeta   2.0.1 (no longer in toolmgr.toml)\n");
  const relocked = await p.run("lock");
  assert.equal(
    relocked.stdout,
    "alpha  1.1.0 -> 1.0.0\nbeta   2.0.1 (no longer in toolmgr.toml)\nwrote toolmgr.lock\n",
  );
  assert.doesNotMatch(await readFile(lockPath, "utf8"), /beta/);

  // "only metadata would change": the same version under a new constraint still rewrites the lock.
  await setToml(p, PLATFORM + blockTool("alpha", "1.0.0"));
  const metadata = await p.run("lock", "--check");
  assert.equal(metadata.code, 3);
  assert.equal(metadata.stdout, "alpha  1.0.0 (constraint)\n");
  assert.equal((await p.run("lock")).stdout, "alpha  1.0.0\nwrote toolmgr.lock\n");
  assert.match(await readFile(lockPath, "utf8"), /constraint = "1\.0\.0"/);

  // "a project-local source changed": --check says so; a bin list naming one command twice is refused.
  await setToml(
    p,
    PLATFORM + blockTool("alpha", "1.0.0").replace('bin = ["alpha"]', 'bin = ["alpha", "alpha"]'),
  );
  const twice = await p.run("lock", "--check");
  assert.equal(twice.code, 1);
  assert.match(twice.stderr, /\[tools\.alpha\.source\]: "bin" names the same command twice/);
  await setToml(
    p,
    PLATFORM + blockTool("alpha", "1.0.0").replace('bin = ["alpha"]', 'bin = ["alpha", "alpha-helper"]'),
  );
  const source = await p.run("lock", "--check");
  assert.equal(source.code, 3, source.stderr);
  assert.equal(source.stdout, "alpha  1.0.0 (bin, source)\n");

  const undeclared = await p.run("lock", "gamma");
  assert.equal(undeclared.code, 1);
  assert.match(undeclared.stderr, /^toolmgr: Cannot lock "gamma": it is not in .*toolmgr\.toml/);
});

test("a source without the v tag prefix, a constraint nothing satisfies, and a rate limit during --check", async () => {
  host.addRepo("acme/bare");
  await publishBlockTool(host, "bare", "3.1.0", { tag: "3.1.0" });
  const p = await blockProject(host, PLATFORM + blockTool("bare", "3", 'tag_prefix = ""\n'));
  const locked = await p.run("lock");
  assert.equal(locked.stdout, "bare  locked 3.1.0\nwrote toolmgr.lock\n", locked.stderr);
  assert.match(await readFile(join(p.dir, "toolmgr.lock"), "utf8"), /\/releases\/download\/3\.1\.0\//);

  await setToml(p, PLATFORM + blockTool("bare", "4", 'tag_prefix = ""\n'));
  const none = await p.run("lock");
  assert.equal(none.code, 1);
  assert.match(none.stderr, /Cannot resolve "bare@4": no published stable release of "acme\/bare" matches/);

  host.failNext("/repos/acme/bare", {
    status: 403,
    headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": "1700000000" },
    count: 20,
  });
  const limited = await p.run("lock", "--check");
  assert.equal(limited.code, 1, "a resolution error is 1, not 'would change'");
  assert.match(limited.stderr, /rate limit is exhausted\. It resets at 2023-11-14T22:13:20\.000Z/);
});

for (const [label, edit, message] of [
  ["a command to run at install", 'install = "curl | sh"\n', /\[tools\.foo\.source\]: unknown key "install"/],
  [
    "a post-install hook",
    'post_install = "rm -rf /"\n',
    /\[tools\.foo\.source\]: unknown key "post_install"/,
  ],
  ["a source type that runs a shell", "shell", /"type" must be "github_release" or "http", got "shell"/],
  ["a package-manager source type", "cargo", /"type" must be "github_release" or "http", got "cargo"/],
  ["an unknown top-level key", "tool", /toolmgr\.toml: unknown key "tool"/],
  ["a range constraint", "^1.7", /Cannot parse the version of "foo": "\^1\.7" is not a version/],
  ["a tool name with capitals", "Foundry", /tool name "Foundry" must be lower-case/],
  [
    "an unknown platform",
    "plan9/amd64",
    /unknown platform "plan9\/amd64" in "platforms" \(supported: linux\/amd64, linux\/arm64/,
  ],
  [
    "a table without a source",
    "nosource",
    /Cannot resolve "foo": it is not in the registry; .*\[tools\.foo\.source\] table/,
  ],
  [
    "an http source on plain http",
    "http",
    /\[tools\.foo\.source\] "url": an http source must use https:\/\//,
  ],
] as const) {
  test(`toolmgr.toml with ${label} is refused naming the key, before any request; no lock is written`, async () => {
    let toml = PLATFORM + blockTool("foo", "1.2");
    if (edit.endsWith("\n")) toml += edit;
    else if (edit === "shell" || edit === "cargo") toml = toml.replace('"github_release"', `"${edit}"`);
    else if (edit === "tool") toml = `${PLATFORM}[tool]\nfoo = "1.2"\n`;
    else if (edit === "^1.7") toml = toml.replace('version = "1.2"', 'version = "^1.7"');
    else if (edit === "Foundry") toml = `${PLATFORM}[tools]\nFoundry = "1.7"\n`;
    else if (edit === "plan9/amd64") toml = toml.replace("linux/amd64", "plan9/amd64");
    else if (edit === "nosource") toml = `${PLATFORM}[tools.foo]\nversion = "1.2"\n`;
    else if (edit === "http")
      toml = `${PLATFORM}[tools.foo]\nversion = "1.2"\n[tools.foo.source]\ntype = "http"\nrepo = "acme/foo"\nurl = "http://mirror.example.com/foo_{version}.tar.gz"\nbin = ["foo"]\n`;
    const requests = host.count("/");
    const p = await blockProject(host, toml);
    const r = await p.run("lock");
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stderr, message);
    assert.equal(existsSync(join(p.dir, "toolmgr.lock")), false);
    assert.equal(host.count("/"), requests, "nothing was asked of the code host");
  });
}

test("a channel pin: locked through the moving tag, installed under its pinned tag, moved only when the tag moved", async () => {
  host.addRepo("acme/night");
  const publishNightly = async (build: string) => {
    const commit = host.setTag("acme/night", "nightly", { commit: build });
    host.addRelease("acme/night", {
      tag: `nightly-${commit}`,
      prerelease: true,
      assets: [
        {
          name: "night_nightly_linux_amd64.tar.gz",
          data: await buildArtifact("tar.gz", { name: "night", version: build }),
          digest: true,
        },
      ],
    });
    return commit;
  };
  const first = await publishNightly("build-1");
  host.addRepo("acme/stable");
  await publishBlockTool(host, "stable", "1.13.0");
  const night = `${blockTool("night", "nightly")}[tools.night.source.channels.nightly]\nasset = "night_nightly_{os}_{arch}.tar.gz"\n`;
  const p = await blockProject(host, PLATFORM + night + blockTool("stable", "1.13"));
  const locked = await p.run("lock");
  assert.equal(
    locked.stdout,
    `night   locked nightly-${first}\nstable  locked 1.13.0\nwrote toolmgr.lock\n`,
    locked.stderr,
  );
  const synced = await p.run("sync");
  assert.match(
    synced.stdout,
    new RegExp(`^night   installed nightly-${first}\nstable  installed 1\\.13\\.0\n`),
  );
  assert.equal((await p.run("exec", "night", "x")).stdout, "night build-1 x\n");
  assert.equal((await p.run("exec", "stable")).stdout, "stable 1.13.0 \n");
  assert.ok(existsSync(join(p.home, "tools", "night")));
  const installs = await readdir(join(p.home, "tools", "night"));
  assert.deepEqual(
    installs.map((d) => d.replace(/-[0-9a-f]{12}$/, "")),
    [`nightly-${first}`],
    "stored under the pinned tag",
  );
  assert.match((await p.run("sync")).stdout, new RegExp(`^night   present nightly-${first}\n`));
  assert.equal((await p.run("lock", "--check")).code, 0, "the tag has not moved");

  const second = await publishNightly("build-2");
  await publishBlockTool(host, "stable", "1.13.1");
  const lockBefore = await readFile(join(p.dir, "toolmgr.lock"), "utf8");
  const check = await p.run("lock", "--check");
  assert.equal(check.code, 3);
  assert.equal(check.stdout, `night   nightly-${first} -> nightly-${second}\nstable  1.13.0 -> 1.13.1\n`);
  assert.equal(await readFile(join(p.dir, "toolmgr.lock"), "utf8"), lockBefore, "--check wrote nothing");
  const moved = await p.run("lock");
  assert.match(
    moved.stdout,
    new RegExp(`^night   nightly-${first} -> nightly-${second}\nstable  1\\.13\\.0 -> 1\\.13\\.1\n`),
  );

  await setToml(p, PLATFORM + blockTool("stable", "nightly"));
  const noChannels = await p.run("lock");
  assert.equal(noChannels.code, 1);
  assert.match(
    noChannels.stderr,
    /Cannot resolve "stable@nightly": the source declares no channel "nightly"\n$/,
  );
});

test("a pin survives a new upstream release until lock moves it (sync and exec never resolve)", async () => {
  host.addRepo("acme/pinned");
  await publishBlockTool(host, "pinned", "1.7.4");
  const p = await blockProject(host, PLATFORM + blockTool("pinned", "1.7"));
  assert.equal((await p.run("lock")).code, 0);
  assert.match((await p.run("sync")).stdout, /^pinned {2}installed 1\.7\.4\n/);
  await publishBlockTool(host, "pinned", "1.7.5");
  assert.match((await p.run("sync")).stdout, /^pinned {2}present 1\.7\.4\n/);
  assert.equal((await p.run("exec", "pinned")).stdout, "pinned 1.7.4 \n");
  assert.equal((await p.shim("pinned")).stdout, "pinned 1.7.4 \n");
  const check = await p.run("lock", "--check");
  assert.equal(check.code, 3);
  assert.equal(check.stdout, "pinned  1.7.4 -> 1.7.5\n");
  assert.equal((await p.run("lock")).stdout, "pinned  1.7.4 -> 1.7.5\nwrote toolmgr.lock\n");
  assert.match((await p.run("sync")).stdout, /^pinned {2}installed 1\.7\.5\n/);
  assert.equal((await p.run("exec", "pinned")).stdout, "pinned 1.7.5 \n");
});

test("a changed project-local source re-locks an unchanged URL from the recorded digest; it is never fetched twice", async () => {
  host.addRepo("acme/tofu");
  host.addRelease("acme/tofu", {
    tag: "v1.2.0",
    assets: [
      {
        name: "tofu_1.2.0_linux_amd64.tar.gz",
        data: await buildArtifact("tar.gz", { name: "tofu", version: "1.2.0" }),
        digest: false,
      },
    ],
  });
  const download = "web:/acme/tofu/releases/download/v1.2.0/tofu_1.2.0_linux_amd64.tar.gz";
  const p = await blockProject(host, PLATFORM + blockTool("tofu", "1.2"));
  const first = await p.run("lock");
  assert.equal(first.code, 0, first.stderr);
  assert.equal(host.count(download), 1, "no host digest: downloaded once (trust on first use)");
  const digest = /sha256 = "([0-9a-f]{64})"/.exec(await readFile(join(p.dir, "toolmgr.lock"), "utf8"))?.[1];

  await setToml(
    p,
    PLATFORM + blockTool("tofu", "1.2").replace('bin = ["tofu"]', 'bin = ["bin/tofu"]\nstrip_components = 0'),
  );
  const check = await p.run("lock", "--check");
  assert.equal(check.code, 3);
  assert.equal(check.stdout, "tofu  1.2.0 (bin, source)\n");
  const relocked = await p.run("lock");
  assert.equal(relocked.code, 0, relocked.stderr);
  assert.equal(relocked.stderr, "", "nothing downloaded");
  assert.equal(host.count(download), 1, "the unchanged URL was not fetched again");
  assert.match(await readFile(join(p.dir, "toolmgr.lock"), "utf8"), new RegExp(`sha256 = "${digest}"`));
});
