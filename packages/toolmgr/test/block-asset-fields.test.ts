import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { buildArtifact } from "./support/archives.js";
import { blockProject, HELLO, startBlockHost } from "./support/block-project.js";
import type { FakeCodeHost } from "./support/fake-code-host.js";

// A release's assets are read with only the fields toolmgr needs: block's fake GitHub (like some GitHub-compatible
// hosts and caching proxies) sends name, browser_download_url and digest, no API `url`, and tag refs without `object`.

let host: FakeCodeHost;

before(async () => {
  host = await startBlockHost();
});

after(async () => {
  await host.close();
});

test("lock, sync and a shim work with a host whose assets carry no API url (block's fake GitHub)", async () => {
  const p = await blockProject(host, HELLO);
  const lock = await p.run("lock");
  assert.equal(lock.stderr, "");
  assert.equal(lock.stdout, "hello  locked 1.2.3\nwrote toolmgr.lock\n");
  assert.equal(lock.code, 0);
  const text = await readFile(join(p.dir, "toolmgr.lock"), "utf8");
  assert.match(
    text,
    /url = "http:\/\/127\.0\.0\.1:\d+\/acme\/hello\/releases\/download\/v1\.2\.3\/hello_1\.2\.3_linux_amd64\.tar\.gz"/,
  );
  assert.doesNotMatch(text, /api_url/);
  const sync = await p.run("sync");
  assert.equal(sync.code, 0, sync.stderr);
  const shim = await p.shim("hello", { args: ["world"] });
  assert.equal(shim.stdout, "hello 1.2.3 world\n");
  assert.equal(shim.code, 0);
});

test("an asset without a host digest is downloaded once at lock (trust on first use), also without an API url", async () => {
  const p = await blockProject(host, HELLO.replace('version = "1.2"', 'version = "1.2.0"'));
  const lock = await p.run("lock");
  assert.equal(lock.code, 0, lock.stderr);
  assert.match(await readFile(join(p.dir, "toolmgr.lock"), "utf8"), /sha256 = "[0-9a-f]{64}"/);
});

test("{commit} in an asset name is found for a listed tag that carries no object (block's fake lists names only)", async () => {
  host.addRepo("acme/stamp");
  const commit = host.setTag("acme/stamp", "v2.0.0");
  host.addRelease("acme/stamp", {
    tag: "v2.0.0",
    assets: [
      {
        name: `stamp_2.0.0_${commit.slice(0, 8)}_linux_amd64.tar.gz`,
        data: await buildArtifact("tar.gz", { name: "stamp", version: "2.0.0" }),
      },
    ],
  });
  const p = await blockProject(
    host,
    HELLO.replaceAll("hello", "stamp")
      .replace('version = "1.2"', 'version = "2"')
      .replace("stamp_{version}_{os}_{arch}", "stamp_{version}_{commit}_{os}_{arch}"),
  );
  const lock = await p.run("lock");
  assert.equal(lock.stdout, "stamp  locked 2.0.0\nwrote toolmgr.lock\n", lock.stderr);
  assert.equal(lock.code, 0);
  assert.equal(host.count("/repos/acme/stamp/commits/v2.0.0"), 1);
});

test("a raw executable with two bin entries or a strip_components is refused by lock, per platform, before any download", async () => {
  // nao1215/block internal/recipe/recipe_test.go TestSourceValidate ("raw two bins", "raw strip"): a single
  // executable is installed under one name and has no directories to strip, so neither could be honoured.
  host.addRepo("acme/rawtool");
  host.addRelease("acme/rawtool", {
    tag: "v2.0.0",
    assets: [
      {
        name: "rawtool-2.0.0-linux-amd64",
        data: await buildArtifact("raw", { name: "rawtool", version: "2.0.0" }),
      },
      {
        name: "rawtool-2.0.0-darwin-arm64.tar.gz",
        data: await buildArtifact("tar.gz", { name: "rawtool", version: "2.0.0" }),
      },
    ],
  });
  // The darwin archive and the linux raw file come from one template through a per-platform {target}.
  const good = `platforms = ["darwin/arm64", "linux/amd64"]
[tools.rawtool]
version = "2"
[tools.rawtool.source]
type = "github_release"
repo = "acme/rawtool"
asset = "rawtool-{version}-{target}"
bin = ["rawtool"]
[tools.rawtool.source.target]
"darwin/arm64" = "darwin-arm64.tar.gz"
"linux/amd64" = "linux-amd64"
`;
  const p = await blockProject(host, good);
  const lock = await p.run("lock");
  assert.equal(lock.code, 0, lock.stderr);
  const locked = await readFile(join(p.dir, "toolmgr.lock"), "utf8");
  const sync = await p.run("sync", "--quiet");
  assert.equal(sync.code, 0, sync.stderr);
  assert.equal((await p.shim("rawtool", { args: ["x"] })).stdout, "rawtool 2.0.0 x\n");
  for (const [change, why] of [
    [
      'bin = ["rawtool", "bin/other"]',
      /it lists 2 executables in "bin" \("rawtool", "bin\/other"\), and a raw executable is installed under exactly one name/,
    ],
    [
      'bin = ["rawtool"]\nstrip_components = 1',
      /"strip_components" is 1, and a raw executable has no directories to strip/,
    ],
  ] as const) {
    const bad = good.replace('bin = ["rawtool"]', change);
    await writeFile(join(p.dir, "toolmgr.toml"), bad);
    const downloads = host.count("web:") + host.count("storage:");
    const r = await p.run("lock");
    assert.equal(r.code, 1, r.stdout);
    assert.match(
      r.stderr,
      /Cannot lock "rawtool" for linux\/amd64: its artifact "rawtool-2\.0\.0-linux-amd64" is a single executable, not an archive/,
    );
    assert.match(r.stderr, why);
    assert.equal(
      await readFile(join(p.dir, "toolmgr.lock"), "utf8"),
      locked,
      "the old lock is left as it was",
    );
    assert.equal(host.count("web:") + host.count("storage:"), downloads, "nothing downloaded");
  }
});
