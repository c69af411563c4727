import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { buildArtifact } from "./support/archives.js";
import { FakeCodeHost } from "./support/fake-code-host.js";
import { runCli } from "./support/run-cli.js";
import { tempDir } from "./support/temp-dir.js";

let host: FakeCodeHost;

before(async () => {
  host = await FakeCodeHost.start();
  host.addRepo("acme/slow");
  const data = await buildArtifact("tar.gz", { name: "slow", version: "1.0.0" });
  host.addRelease("acme/slow", {
    tag: "v1.0.0",
    assets: [{ name: "slow-linux.tar.gz", data, digest: false }],
  });
  // Over 1 MiB, so it is streamed to disk rather than buffered (artifact-cache.ts): both paths must survive a stall.
  host.addRepo("acme/big");
  const big = Buffer.concat([
    await buildArtifact("raw", { name: "big", version: "1.0.0" }),
    randomBytes(2 << 20),
  ]);
  host.addRelease("acme/big", { tag: "v1.0.0", assets: [{ name: "big-linux", data: big, digest: false }] });
});

after(async () => {
  await host.close();
});

const TOML = `platforms = ["linux/amd64"]
[tools.slow]
version = "1.0.0"
[tools.slow.source]
type = "github_release"
repo = "acme/slow"
asset = "slow-{os}.tar.gz"
bin = ["slow"]
platforms = ["linux/amd64"]
`;

const BIG = `platforms = ["linux/amd64"]
[tools.big]
version = "1.0.0"
[tools.big.source]
type = "github_release"
repo = "acme/big"
asset = "big-{os}"
bin = ["big"]
platforms = ["linux/amd64"]
`;

async function project(toml = TOML) {
  const dir = await tempDir("toolmgr-stall-");
  const home = await tempDir("toolmgr-stall-home-");
  await writeFile(join(dir, "toolmgr.toml"), toml);
  // A short stall timeout, so the test does not wait a minute per stalled transfer.
  const env = {
    CODEHOST_API_URL: host.apiUrl,
    TOOLMGR_HOME: home,
    CODEHOST_TOKEN: "",
    TOOLMGR_HTTP_TIMEOUT: "0.3",
  };
  return { dir, home, run: (...args: string[]) => runCli(args, { cwd: dir, env }) };
}

test("a download that stalls half-way is dropped and retried; lock (trust on first use) and sync both finish", async () => {
  const p = await project();
  host.requests.clear();
  host.stallDownloads = 1;
  const locked = await p.run("lock");
  assert.equal(locked.code, 0, locked.stderr);
  assert.equal(host.count("storage:"), 2, "the stalled transfer was started again once");

  await rm(join(p.home, "cache"), { recursive: true });
  host.requests.clear();
  host.stallDownloads = 1;
  const synced = await p.run("sync");
  assert.equal(synced.code, 0, synced.stderr);
  assert.match(synced.stdout, /^slow {2}installed 1\.0\.0$/m);
  assert.equal(host.count("storage:"), 2);
});

test("a large download that stalls half-way is streamed again from the start and verified", async () => {
  const p = await project(BIG);
  host.requests.clear();
  host.stallDownloads = 1;
  const locked = await p.run("lock");
  assert.equal(locked.code, 0, locked.stderr);
  assert.equal(host.count("storage:"), 2);
  host.requests.clear();
  const synced = await p.run("sync");
  assert.equal(synced.code, 0, synced.stderr);
  assert.equal(host.count("storage:"), 0, "the verified download was kept in the cache");
});

test("a download that keeps stalling fails after a bounded number of tries with a clear message", async () => {
  const p = await project();
  assert.equal((await p.run("lock")).code, 0);
  await rm(join(p.home, "cache"), { recursive: true });
  host.requests.clear();
  host.stallDownloads = 100;
  const synced = await p.run("sync");
  host.stallDownloads = 0;
  assert.equal(synced.code, 1);
  assert.match(
    synced.stderr,
    /^toolmgr: Cannot download "slow" from http:\/\/127\.0\.0\.1:\d+\/acme\/slow\/releases\/download\/v1\.0\.0\/slow-linux\.tar\.gz: the connection stalled: nothing received for 0\.3 s \(tried 4 times\); check the network and try again$/m,
  );
  assert.equal(host.count("storage:"), 4, "1 try and 3 retries, no more");
  assert.deepEqual(
    await readdir(join(p.home, "cache", "sha256")),
    [],
    "no partial file is left in the cache",
  );
  assert.equal(synced.stdout, "", "nothing was installed, no shim written");
});

test("TOOLMGR_HTTP_TIMEOUT must be a number of seconds", async () => {
  const p = await project();
  const r = await runCli(["lock"], {
    cwd: p.dir,
    env: { CODEHOST_API_URL: host.apiUrl, TOOLMGR_HOME: p.home, TOOLMGR_HTTP_TIMEOUT: "soon" },
  });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /Cannot use TOOLMGR_HTTP_TIMEOUT="soon": give the stall timeout in seconds/);
});
