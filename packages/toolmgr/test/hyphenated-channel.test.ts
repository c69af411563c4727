import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { buildArtifact } from "./support/archives.js";
import { blockProject, startBlockHost } from "./support/block-project.js";
import type { FakeCodeHost } from "./support/fake-code-host.js";

// Version forms rule 1: a channel may carry a hyphen (`pre-release`); its pins keep the whole commit
// (nao1215/block internal/fakegh `stamped`).

let host: FakeCodeHost;

before(async () => {
  host = await startBlockHost();
});

after(async () => {
  await host.close();
});

test("a kept pin of a hyphenated channel (pre-release-<commit>) gains a platform with its whole commit", async () => {
  host.addRepo("acme/stamped");
  const commit = host.setTag("acme/stamped", "pre-release");
  const platforms = ["linux_amd64", "darwin_arm64"];
  host.addRelease("acme/stamped", {
    tag: `pre-release-${commit}`,
    prerelease: true,
    assets: await Promise.all(
      platforms.map(async (p) => ({
        name: `stamped_${commit.slice(0, 8)}_${p}.tar.gz`,
        data: await buildArtifact("tar.gz", { name: "stamped", version: p }),
      })),
    ),
  });
  host.addRepo("acme/duo");
  host.addRelease("acme/duo", {
    tag: "v1.0.0",
    assets: await Promise.all(
      platforms.map(async (p) => ({
        name: `duo_1.0.0_${p}.tar.gz`,
        data: await buildArtifact("tar.gz", { name: "duo", version: p }),
      })),
    ),
  });
  const tools = `
[tools.stamped]
version = "pre-release"
[tools.stamped.source]
type = "github_release"
repo = "acme/stamped"
asset = "stamped_{version}_{os}_{arch}.tar.gz"
bin = ["stamped"]
[tools.stamped.source.channels.pre-release]
asset = "stamped_{commit}_{os}_{arch}.tar.gz"

[tools.duo]
version = "1"
[tools.duo.source]
type = "github_release"
repo = "acme/duo"
asset = "duo_{version}_{os}_{arch}.tar.gz"
bin = ["duo"]
`;
  const p = await blockProject(host, `platforms = ["linux/amd64"]\n${tools}`);
  const first = await p.run("lock");
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, new RegExp(`stamped  locked pre-release-${commit}\\n`));
  await writeFile(join(p.dir, "toolmgr.toml"), `platforms = ["linux/amd64", "darwin/arm64"]\n${tools}`);
  const again = await p.run("lock", "duo");
  // The one line on stderr is the channel-build warning, naming the whole commit; no "no commit found".
  assert.match(
    again.stderr,
    new RegExp(`^toolmgr: warning: stamped pre-release-${commit} is a channel build: [^\\n]*\\n$`),
  );
  assert.equal(again.code, 0);
  const text = await readFile(join(p.dir, "toolmgr.lock"), "utf8");
  assert.ok(text.includes(`stamped_${commit.slice(0, 8)}_darwin_arm64.tar.gz`), text);
  assert.ok(text.includes(`version = "pre-release-${commit}"`), text);
});
