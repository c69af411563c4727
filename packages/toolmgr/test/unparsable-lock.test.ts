import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { parseLockfile } from "../src/lockfile.js";
import { FakeCodeHost } from "./support/fake-code-host.js";
import { localTool, makeProject } from "./support/lock-harness.js";

// `lock` is how a broken lock gets repaired, so it ignores one it cannot parse (with a warning) and writes a new
// one; `lock --check` only reports, so it fails on it instead and writes nothing.

let host: FakeCodeHost;

before(async () => {
  host = await FakeCodeHost.start();
  host.addRepo("acme/hello");
  host.addRelease("acme/hello", {
    tag: "v1.0.0",
    assets: ["linux-amd64", "darwin-arm64"].map((p) => ({
      name: `hello-1.0.0-${p}.tar.gz`,
      data: Buffer.from(`hello ${p}`),
    })),
  });
});

after(async () => {
  await host.close();
});

const TOML = `platforms = ["linux/amd64"]\n${localTool("hello", { version: "1", repo: "acme/hello" })}`;

for (const { label, text, reason } of [
  {
    label: "a lock that is not TOML",
    text: "<<<<<<< HEAD\nversion = 1\n",
    reason: /.+; re-run `toolmgr lock`/,
  },
  {
    label: "a lock of a future format",
    text: "version = 2\n",
    reason: /unsupported format version 2 \(this toolmgr reads version 1\)/,
  },
  {
    // An empty file, one cut off before its first line, or a merge that lost it: said so, not "version undefined".
    label: "a lock without its format version",
    text: '[[tools]]\nname = "hello"\n',
    reason: /it has no format "version" \(this toolmgr reads version 1\); re-run `toolmgr lock`/,
  },
  {
    label: "a lock whose format version is a table",
    text: "version = { major = 1 }\n",
    reason: /unsupported format version \(a table\) \(this toolmgr reads version 1\)/,
  },
  {
    label: "a lock with a digest that is not hex",
    text: `version = 1\n[[tools]]\nname = "hello"\nconstraint = "1"\nversion = "1.0.0"\nbin = ["hello"]\n[[tools.artifacts]]\nplatform = "linux/amd64"\nurl = "https://example.com/hello"\nsha256 = "../../etc"\n`,
    reason: /sha256 of .* must be 64 lower-case hex digits/,
  },
]) {
  test(`lock replaces ${label} with a new lock, warning on stderr; lock --check fails on it`, async () => {
    const p = await makeProject(host, TOML);
    const lockPath = join(p.dir, "toolmgr.lock");
    await writeFile(lockPath, text);

    const check = await p.run(["lock", "--check"]);
    assert.equal(check.code, 1);
    assert.equal(check.stdout, "");
    assert.match(check.stderr, new RegExp(`^toolmgr: Cannot parse lock: ${reason.source}\\n$`));
    assert.equal(await readFile(lockPath, "utf8"), text, "--check wrote nothing");

    const r = await p.run(["lock"]);
    assert.equal(r.code, 0);
    assert.match(
      r.stderr,
      new RegExp(`^toolmgr: ignoring the existing lock: Cannot parse lock: ${reason.source}\\n$`),
    );
    assert.equal(r.stdout, "hello  locked 1.0.0\nwrote toolmgr.lock\n", "every pin is new: nothing was kept");
    const written = parseLockfile(await readFile(lockPath, "utf8"));
    assert.deepEqual(
      written.tools.map((t) => [t.name, t.version, t.artifacts.map((a) => a.platform)]),
      [["hello", "1.0.0", ["linux/amd64"]]],
    );

    const again = await p.run(["lock"]);
    assert.deepEqual(again, { code: 0, stdout: "hello  1.0.0\ntoolmgr.lock is up to date\n", stderr: "" });
  });
}
