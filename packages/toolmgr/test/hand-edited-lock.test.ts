import assert from "node:assert/strict";
import { readFile, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { buildArtifact } from "./support/archives.js";
import { FakeCodeHost } from "./support/fake-code-host.js";
import { runCli, runProgram } from "./support/run-cli.js";
import { tempDir } from "./support/temp-dir.js";

// A lock arrives through pull requests: a pin its constraint does not allow is refused by sync, exec and the shims
// alike (nao1215/block e2e/atago/sync.atago.yaml: "a pinned version that does not satisfy its constraint is refused",
// "a hand-edited version with an empty pre-release is refused"; channel.atago.yaml: "a lockfile floated back onto
// the moving tag is refused"), and the next `lock` resolves it again instead of keeping it.

let host: FakeCodeHost;

before(async () => {
  host = await FakeCodeHost.start();
  host.addRepo("crytic/medusa");
  host.addRepo("acme/nightly");
  for (const version of ["1.0.0", "2.0.0"]) {
    host.addRelease("crytic/medusa", {
      tag: `v${version}`,
      assets: [
        { name: "medusa-linux-x64.tar.gz", data: await buildArtifact("tar.gz", { name: "medusa", version }) },
      ],
    });
  }
  const commit = host.setTag("acme/nightly", "nightly", { commit: "nightly build" });
  host.addRelease("acme/nightly", {
    tag: `nightly-${commit}`,
    prerelease: true,
    assets: [{ name: "nb-linux", data: await buildArtifact("raw", { name: "nb", version: "nightly" }) }],
  });
});

after(async () => {
  await host.close();
});

const NIGHTLY = `[tools.nb]
version = "nightly"
[tools.nb.source]
type = "github_release"
repo = "acme/nightly"
asset = "unused"
bin = ["nb"]
platforms = ["linux/amd64"]
[tools.nb.source.channels.nightly]
asset = "nb-{os}"
`;

async function project(toml: string) {
  const dir = await tempDir("toolmgr-edited-");
  const home = await tempDir("toolmgr-edited-home-");
  await writeFile(join(dir, "toolmgr.toml"), toml);
  const env = { CODEHOST_API_URL: host.apiUrl, TOOLMGR_HOME: home, CODEHOST_TOKEN: "" };
  const cli = (...args: string[]) => runCli(args, { cwd: dir, env });
  const shims = join(home, "shims");
  const shim = (command: string) =>
    runProgram(join(shims, command), [], {
      cwd: dir,
      env: { TOOLMGR_HOME: dirname(shims), PATH: `${shims}:/usr/bin:/bin` },
    });
  const lockPath = join(dir, "toolmgr.lock");
  const edit = async (from: RegExp, to: string) =>
    writeFile(lockPath, (await readFile(lockPath, "utf8")).replace(from, to));
  return { dir, home, cli, shim, edit, lockPath };
}

for (const [label, edited] of [
  ["a version the prefix does not allow", "2.0.0"],
  ["a version with an empty pre-release", "1.0.0-"],
] as const) {
  test(`${label} in the lock is refused by sync, exec and the shim alike, and re-resolved by lock`, async () => {
    const p = await project('platforms = ["linux/amd64"]\n[tools]\nmedusa = "1"\n');
    assert.equal((await p.cli("lock")).code, 0);
    assert.equal((await p.cli("sync")).code, 0);
    await p.edit(/version = "1\.0\.0"/, `version = "${edited}"`);

    const reason = `medusa: pinned to "${edited}", which "1" does not allow; run \`toolmgr lock\``;
    const synced = await p.cli("sync");
    assert.equal(synced.code, 1);
    assert.ok(synced.stderr.includes(`out of date:\n  ${reason}\n`), synced.stderr);
    await assert.rejects(stat(join(p.home, "tools", "medusa", `${edited}-`)), "nothing was installed for it");
    const viaExec = await p.cli("exec", "medusa");
    const viaShim = await p.shim("medusa");
    assert.equal(viaExec.code, 1);
    assert.ok(viaExec.stderr.includes(reason), viaExec.stderr);
    assert.deepEqual(viaShim, { code: 1, stdout: "", stderr: viaExec.stderr });

    const relocked = await p.cli("lock");
    assert.equal(relocked.code, 0, relocked.stderr);
    assert.equal(relocked.stdout, `medusa  ${edited} -> 1.0.0\nwrote toolmgr.lock\n`);
    assert.equal((await p.shim("medusa")).stdout, "medusa 1.0.0 \n");
  });
}

test("a channel pin floated back onto the moving tag is refused", async () => {
  const p = await project(`platforms = ["linux/amd64"]\n${NIGHTLY}`);
  assert.equal((await p.cli("lock")).code, 0);
  assert.equal((await p.cli("sync")).code, 0);
  await p.edit(/version = "nightly-[0-9a-f]+"/, 'version = "nightly"');
  const synced = await p.cli("sync");
  assert.equal(synced.code, 1);
  assert.match(synced.stderr, /nb: pinned to "nightly", which "nightly" does not allow; run `toolmgr lock`/);
  const viaExec = await p.cli("exec", "nb");
  assert.equal(viaExec.code, 1);
  assert.deepEqual(await p.shim("nb"), { code: 1, stdout: "", stderr: viaExec.stderr });
  const status = await p.cli("status", "--json");
  assert.equal(status.code, 3);
  const [entry] = JSON.parse(status.stdout) as { stale: boolean; reason?: string }[];
  assert.equal(entry?.stale, true);
});

test("a store that cannot be written is reported as the store, not as a crash", async () => {
  const p = await project('platforms = ["linux/amd64"]\n[tools]\nmedusa = "1"\n');
  assert.equal((await p.cli("lock")).code, 0);
  const file = join(p.home, "a-file");
  await writeFile(file, "");
  const r = await runCli(["sync"], {
    cwd: p.dir,
    env: { CODEHOST_API_URL: host.apiUrl, TOOLMGR_HOME: join(file, "store") },
  });
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /^toolmgr: Cannot use the store ".*a-file\/store": ENOTDIR on .*; check that TOOLMGR_HOME \(or XDG_DATA_HOME\) names a directory you can write\n$/,
  );
});
