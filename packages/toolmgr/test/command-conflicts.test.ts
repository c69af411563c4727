import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
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

test("a lock that already names one command twice is refused by sync, exec, which and status; lock writes a new one", async () => {
  // nao1215/block internal/block/app_test.go TestAmbiguousLockfileIsRefusedEverywhere and
  // internal/lockfile/lockfile_test.go ("two bins of one tool share a command name", "... differ only in case"):
  // a lock edited or merged by hand can carry what lock refuses from toolmgr.toml.
  const p = await blockProject(host, HELLO);
  assert.equal((await p.run("lock")).code, 0);
  assert.equal((await p.run("sync", "--quiet")).code, 0);
  const lockPath = join(p.dir, "toolmgr.lock");
  const good = await readFile(lockPath, "utf8");
  for (const [bin, message] of [
    [
      '["hello", "extra/HELLO"]',
      /tool "hello" has bin "hello" and "extra\/HELLO", which are both the command "HELLO"/,
    ],
    [
      '["a/hello", "b/hello"]',
      /tool "hello" has bin "a\/hello" and "b\/hello", which are both the command "hello"/,
    ],
  ] as const) {
    await writeFile(lockPath, good.replace('bin = ["hello"]', `bin = ${bin}`));
    for (const args of [["sync"], ["exec", "hello"], ["which", "hello"], ["status"]]) {
      const r = await p.run(...args);
      assert.equal(r.code, 1, `${args.join(" ")}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, message, args.join(" "));
      assert.doesNotMatch(r.stdout, /hello 1\.2\.3/, `${args.join(" ")} ran nothing`);
    }
    const shim = await p.shim("hello");
    assert.equal(shim.code, 1, shim.stderr);
    assert.match(shim.stderr, message, "the shim");
  }
  // Two tools of one lock: another tool's executable is the command "Hello" too.
  const twice = good.replace(
    /\[\[tools\]\][\s\S]*$/,
    (entry) =>
      `${entry}\n${entry.replace('name = "hello"', 'name = "other"').replace('bin = ["hello"]', 'bin = ["Hello"]')}`,
  );
  await writeFile(lockPath, twice);
  const sync = await p.run("sync");
  assert.equal(sync.code, 1);
  assert.match(
    sync.stderr,
    /the command "Hello" is provided by both "hello" \("hello"\) and "other" \("Hello"\)/,
  );
  // lock ignores a lock it cannot use and writes what toolmgr.toml asks for.
  const relock = await p.run("lock");
  assert.equal(relock.code, 0, relock.stderr);
  assert.equal(await readFile(lockPath, "utf8"), good);
});
