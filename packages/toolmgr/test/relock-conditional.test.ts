import assert from "node:assert/strict";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { FakeCodeHost } from "./support/fake-code-host.js";
import { localTool } from "./support/lock-harness.js";
import { runCli } from "./support/run-cli.js";
import { tempDir } from "./support/temp-dir.js";

let host: FakeCodeHost;

before(async () => {
  host = await FakeCodeHost.start();
  for (const name of ["one", "two"]) {
    host.addRepo(`acme/${name}`, { private: name === "two" });
    for (const version of ["1.0.0", "1.1.0"]) {
      host.addRelease(`acme/${name}`, {
        tag: `v${version}`,
        assets: ["linux-amd64", "darwin-arm64"].map((p) => ({
          name: `${name}-${version}-${p}.tar.gz`,
          data: Buffer.from(`${name} ${version} ${p}`),
        })),
      });
    }
    const commit = host.setTag(`acme/${name}`, "nightly", { commit: `${name} nightly` });
    host.addRelease(`acme/${name}`, {
      tag: `nightly-${commit}`,
      prerelease: true,
      assets: ["linux-amd64", "darwin-arm64"].map((p) => ({
        name: `${name}-nightly-${p}.tar.gz`,
        data: Buffer.from(`${name} nightly ${p}`),
      })),
    });
  }
});

after(async () => {
  await host.close();
});

function apiRequests(): number {
  let n = 0;
  for (const [path, count] of host.requests) if (path.startsWith("/repos/")) n += count;
  return n;
}

function notModified(): number {
  return [...host.notModified.values()].reduce((a, b) => a + b, 0);
}

test("a re-lock revalidates every API answer with its ETag: all 304s, remembered in the store, lock unchanged", async () => {
  const dir = await tempDir("toolmgr-etag-");
  const home = await tempDir("toolmgr-etag-home-");
  const toml = `platforms = ["linux/amd64", "darwin/arm64"]
${localTool("one", { version: "1", repo: "acme/one" })}
${localTool("two", { version: "nightly", repo: "acme/two" })}`;
  await writeFile(join(dir, "toolmgr.toml"), toml);
  const env = { CODEHOST_API_URL: host.apiUrl, TOOLMGR_HOME: home, CODEHOST_TOKEN: host.token };

  host.requests.clear();
  host.notModified.clear();
  const first = await runCli(["lock"], { cwd: dir, env });
  assert.equal(first.code, 0, first.stderr);
  const firstRequests = apiRequests();
  assert.ok(firstRequests >= 6, `refs, releases, commit and privacy lookups were asked (${firstRequests})`);
  assert.equal(notModified(), 0, "nothing was remembered yet");
  const remembered = await readdir(join(home, "cache", "http"));
  assert.equal(remembered.length, 1, "one file for the project");
  const file = await readFile(join(home, "cache", "http", remembered[0] ?? ""), "utf8");
  assert.equal(Object.keys(JSON.parse(file).entries).length, firstRequests, "one entry per API request");
  assert.ok(!file.includes(host.token), "the token is never written to the store");
  const lock = await readFile(join(dir, "toolmgr.lock"), "utf8");

  host.requests.clear();
  const again = await runCli(["lock"], { cwd: dir, env });
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /toolmgr\.lock is up to date/);
  assert.equal(apiRequests(), firstRequests, "the same requests are made");
  assert.equal(notModified(), firstRequests, "and every one is answered 304 Not Modified");
  assert.equal(await readFile(join(dir, "toolmgr.lock"), "utf8"), lock);

  // A changed answer is a 200 with a new ETag: the new release is seen, nothing stale is reused.
  host.addRelease("acme/one", {
    tag: "v1.2.0",
    assets: ["linux-amd64", "darwin-arm64"].map((p) => ({
      name: `one-1.2.0-${p}.tar.gz`,
      data: Buffer.from(`one 1.2.0 ${p}`),
    })),
  });
  host.notModified.clear();
  const moved = await runCli(["lock"], { cwd: dir, env });
  assert.equal(moved.code, 0, moved.stderr);
  assert.match(moved.stdout, /^one {2}1\.1\.0 -> 1\.2\.0$/m);
  assert.equal(host.notModified.get("/repos/acme/one/git/matching-refs/tags/v1"), undefined);
  assert.equal(host.notModified.get("/repos/acme/two/commits/nightly"), 1);
});

test("a damaged remembered answer is ignored, not trusted", async () => {
  const dir = await tempDir("toolmgr-etag-");
  const home = await tempDir("toolmgr-etag-home-");
  await writeFile(
    join(dir, "toolmgr.toml"),
    `platforms = ["linux/amd64"]\n${localTool("one", { version: "1.0", repo: "acme/one" })}`,
  );
  const env = { CODEHOST_API_URL: host.apiUrl, TOOLMGR_HOME: home, CODEHOST_TOKEN: "" };
  assert.equal((await runCli(["lock"], { cwd: dir, env })).code, 0);
  for (const file of await readdir(join(home, "cache", "http"))) {
    await writeFile(join(home, "cache", "http", file), "{not json");
  }
  host.notModified.clear();
  const again = await runCli(["lock"], { cwd: dir, env });
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /^one {2}1\.0\.0$/m);
  assert.equal(notModified(), 0, "no If-None-Match was sent for an unreadable entry");
});
