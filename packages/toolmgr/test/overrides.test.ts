import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { parseLockfile } from "../src/lockfile.js";
import { buildArtifact } from "./support/archives.js";
import { FakeCodeHost } from "./support/fake-code-host.js";
import { makeProject } from "./support/lock-harness.js";

let host: FakeCodeHost;

before(async () => {
  host = await FakeCodeHost.start();
  const asset = (name: string) => ({ name, data: Buffer.from(name) });
  host.addRepo("aptos-labs/aptos-core");
  host.addRelease("aptos-labs/aptos-core", {
    tag: "aptos-cli-v4.2.1",
    assets: [asset("aptos-cli-4.2.1-Ubuntu-22.04-x86_64.zip"), asset("aptos-cli-4.2.1-Ubuntu-x86_64.zip")],
  });
  host.addRelease("aptos-labs/aptos-core", {
    tag: "aptos-cli-v7.2.0",
    assets: [asset("aptos-cli-7.2.0-Linux-x86_64.zip"), asset("aptos-cli-7.2.0-Linux-aarch64.zip")],
  });
  host.addRepo("IntersectMBO/cardano-node");
  host.addRelease("IntersectMBO/cardano-node", {
    tag: "10.1.4",
    assets: [asset("cardano-node-10.1.4-linux.tar.gz"), asset("cardano-node-10.1.4-macos.tar.gz")],
  });
  host.addRelease("IntersectMBO/cardano-node", {
    tag: "8.7.3",
    assets: [asset("cardano-node-8.7.3-linux.tar.gz")],
  });
  host.addRelease("IntersectMBO/cardano-node", {
    tag: "10.6.2",
    assets: [
      asset("cardano-node-10.6.2-linux-amd64.tar.gz"),
      asset("cardano-node-10.6.2-linux-arm64.tar.gz"),
    ],
  });
  host.addRepo("acme/renamed");
  for (const [version, name] of [
    ["1.4.0", "renamed-1.4.0-linux.tar.gz"],
    ["2.0.0", "renamed-2.0.0-linux-amd64.tar.gz"],
  ] as const) {
    host.addRelease("acme/renamed", {
      tag: `v${version}`,
      assets: [{ name, data: await buildArtifact("tar.gz", { name: "renamed", version, wrap: "pkg" }) }],
    });
  }
});

after(async () => {
  await host.close();
});

async function lockOf(dir: string) {
  return parseLockfile(await readFile(join(dir, "toolmgr.lock"), "utf8"));
}

test("the embedded aptos and cardano-node recipes lock old releases under their old asset names, new ones under the new", async () => {
  const p = await makeProject(
    host,
    'platforms = ["linux/amd64"]\n[tools]\naptos = "4.2.1"\ncardano-node = "10.1.4"\n',
  );
  const r = await p.run(["lock"]);
  assert.equal(r.code, 0, r.stderr);
  const lock = await lockOf(p.dir);
  assert.match(
    lock.tools.find((t) => t.name === "aptos")?.artifacts[0]?.url ?? "",
    /aptos-cli-4\.2\.1-Ubuntu-22\.04-x86_64\.zip$/,
  );
  assert.match(
    lock.tools.find((t) => t.name === "cardano-node")?.artifacts[0]?.url ?? "",
    /cardano-node-10\.1\.4-linux\.tar\.gz$/,
  );
  await p.write('platforms = ["linux/amd64"]\n[tools]\naptos = "7.2.0"\ncardano-node = "8.7.3"\n');
  assert.equal((await p.run(["lock"])).code, 0);
  const next = await lockOf(p.dir);
  assert.match(
    next.tools.find((t) => t.name === "aptos")?.artifacts[0]?.url ?? "",
    /aptos-cli-7\.2\.0-Linux-x86_64\.zip$/,
  );
  const cardano = next.tools.find((t) => t.name === "cardano-node");
  assert.match(cardano?.artifacts[0]?.url ?? "", /cardano-node-8\.7\.3-linux\.tar\.gz$/);
  assert.deepEqual(
    cardano?.bin,
    ["cardano-node", "cardano-cli", "cardano-submit-api"],
    "8.x: executables at the root",
  );
  await p.write('platforms = ["linux/arm64"]\n[tools]\ncardano-node = "10.1.4"\n');
  const arm = await p.run(["lock"]);
  assert.equal(arm.code, 1, "the old scheme has no arm64 build: refused, no substitute");
  assert.match(arm.stderr, /not published for it \(supported: linux\/amd64, darwin\/amd64\)/);
});

const local = (overrides: string) => `[tools.renamed]
version = "1"

[tools.renamed.source]
type = "github_release"
repo = "acme/renamed"
asset = "renamed-{version}-{os}-{arch}.tar.gz"
bin = ["renamed"]
platforms = ["linux/amd64"]
${overrides}`;

test("[[tools.<name>.source.overrides]] in toolmgr.toml: the first matching override applies, through lock and sync", async () => {
  const p = await makeProject(
    host,
    local(`
[[tools.renamed.source.overrides]]
versions = ["0", "1"]
asset = "renamed-{version}-{os}.tar.gz"
strip_components = 1

[[tools.renamed.source.overrides]]
versions = "1.4"
asset = "never-used-{version}.tar.gz"
`),
  );
  const r = await p.run(["lock"]);
  assert.equal(r.code, 0, r.stderr);
  const lock = await lockOf(p.dir);
  assert.match(lock.tools[0]?.artifacts[0]?.url ?? "", /renamed-1\.4\.0-linux\.tar\.gz$/);
  assert.equal(lock.tools[0]?.stripComponents, 1);
  const s = await p.run(["sync"]);
  assert.equal(s.code, 0, s.stderr);
  assert.match(s.stdout, /renamed +installed 1\.4\.0/);
  await p.write(local("").replace('version = "1"', 'version = "2"'));
  const two = await p.run(["lock"]);
  assert.equal(two.code, 0, two.stderr);
  assert.match(
    (await lockOf(p.dir)).tools[0]?.artifacts[0]?.url ?? "",
    /renamed-2\.0\.0-linux-amd64\.tar\.gz$/,
  );
});

test("a bad override is refused naming the key or the versions entry", async () => {
  const p = await makeProject(
    host,
    local('\n[[tools.renamed.source.overrides]]\nversions = "1"\nfiles = ["x"]\n'),
  );
  const unknown = await p.run(["lock"]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /overrides\[0\]: unknown key "files"/);
  await p.write(local('\n[[tools.renamed.source.overrides]]\nversions = ">= 1.0"\nasset = "x"\n'));
  const range = await p.run(["lock"]);
  assert.equal(range.code, 1);
  assert.match(range.stderr, /"versions" entry ">= 1\.0" is not a version prefix/);
  await p.write(local('\n[[tools.renamed.source.overrides]]\nasset = "x-{cpu}"\nversions = "1"\n'));
  const placeholder = await p.run(["lock"]);
  assert.match(placeholder.stderr, /overrides\[0\] "asset": unknown placeholder \{cpu\}/);
});
