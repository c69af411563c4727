import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { buildArtifact } from "./support/archives.js";
import { blockProject, HELLO, startBlockHost } from "./support/block-project.js";
import type { FakeCodeHost } from "./support/fake-code-host.js";

// Two tools providing one command are refused from the project file alone, before any request or download
// (nao1215/block e2e/atago/lock.atago.yaml).

let host: FakeCodeHost;

before(async () => {
  host = await startBlockHost();
});

after(async () => {
  await host.close();
});

test("two tools providing one command (also differing only in case) are refused before anything is downloaded", async () => {
  host.addRepo("acme/other");
  host.addRelease("acme/other", {
    tag: "v1.0.0",
    assets: [
      {
        name: "other_1.0.0_linux_amd64.tar.gz",
        data: await buildArtifact("tar.gz", { name: "Hello", version: "1.0.0" }),
        digest: false,
      },
    ],
  });
  const other = `
[tools.other]
version = "1"
[tools.other.source]
type = "github_release"
repo = "acme/other"
asset = "other_{version}_{os}_{arch}.tar.gz"
bin = ["Hello"]
`;
  const p = await blockProject(host, HELLO.replace('version = "1.2"', 'version = "1.2.0"') + other);
  const before = host.count("web:");
  const lock = await p.run("lock");
  assert.equal(lock.code, 1);
  assert.match(lock.stderr, /the command "Hello" is provided by both "hello" and "other"/);
  assert.equal(host.count("web:"), before, "nothing downloaded");
  await assert.rejects(readFile(join(p.dir, "toolmgr.lock")), "no lock written");
  await assert.rejects(readFile(join(p.home, "cache", "sha256")), "nothing cached");
});
