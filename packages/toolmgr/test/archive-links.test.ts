import assert from "node:assert/strict";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { blockProject, startBlockHost } from "./support/block-project.js";
import type { FakeCodeHost } from "./support/fake-code-host.js";
import { writeTar } from "./support/tar-writer.js";

// Links inside a release archive (nao1215/block internal/fakegh `linked` and `linky`; real distributions ship
// `lib/libfoo.so -> libfoo.so.1`, `bin/tool -> ../libexec/tool`): a link that stays inside the install is kept,
// also as a `bin` entry; one that is absolute or climbs out is refused, naming the entry, and nothing is installed.

let host: FakeCodeHost;

const TOOL = '#!/bin/sh\necho "tool $*"\n';

before(async () => {
  host = await startBlockHost();
  host.addRepo("acme/linked");
  host.addRelease("acme/linked", {
    tag: "v1.0.0",
    assets: [
      {
        name: "linked_1.0.0_linux_amd64.tar.gz",
        data: writeTar([
          { name: "linked-1.0.0/libexec/tool", content: TOOL, mode: 0o755 },
          { name: "linked-1.0.0/bin/tool", type: "symlink", linkname: "../libexec/tool" },
          { name: "linked-1.0.0/Runner", type: "symlink", linkname: "libexec/tool" },
        ]),
      },
    ],
  });
  host.addRepo("acme/linky");
  host.addRelease("acme/linky", {
    tag: "v1.0.0",
    assets: [
      {
        name: "linky_1.0.0_linux_amd64.tar.gz",
        data: writeTar([
          { name: "linky", content: TOOL, mode: 0o755 },
          { name: "etc-passwd", type: "symlink", linkname: "/etc/passwd" },
        ]),
      },
    ],
  });
});

after(async () => {
  await host.close();
});

const project = (name: string, bin: string, strip: number) => `platforms = ["linux/amd64"]
[tools.${name}]
version = "1"
[tools.${name}.source]
type = "github_release"
repo = "acme/${name}"
asset = "${name}_{version}_{os}_{arch}.tar.gz"
bin = ${JSON.stringify(bin.split(","))}
strip_components = ${strip}
`;

test("links that stay inside the install are kept, and a bin entry may be one", async () => {
  const p = await blockProject(host, project("linked", "bin/tool,Runner", 1));
  assert.equal((await p.run("lock")).code, 0);
  const sync = await p.run("sync");
  assert.equal(sync.code, 0, sync.stderr);
  assert.equal((await p.shim("tool", { args: ["a"] })).stdout, "tool a\n");
  assert.equal((await p.shim("Runner", { args: ["b"] })).stdout, "tool b\n");
  assert.equal((await p.run("exec", "tool", "c")).stdout, "tool c\n");
});

test("a link to an absolute path is refused, naming the entry, and nothing is installed", async () => {
  const p = await blockProject(host, project("linky", "linky", 0));
  assert.equal((await p.run("lock")).code, 0);
  const sync = await p.run("sync");
  assert.equal(sync.code, 1);
  assert.match(
    sync.stderr,
    /Cannot unpack "linky" 1\.0\.0 .*entry "etc-passwd" is a link to the absolute path "\/etc\/passwd"/,
  );
  assert.deepEqual(await readdir(join(p.home, "tools", "linky")), []);
  await assert.rejects(stat(join(p.home, "shims")), "no shims written");
});
