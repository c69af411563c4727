import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { buildArtifact } from "./support/archives.js";
import { runCli } from "./support/run-cli.js";
import { type ScriptedServer, sendJson, startScriptedServer } from "./support/scripted-server.js";
import { tempDir } from "./support/temp-dir.js";
import { treeSnapshot } from "./support/tree-snapshot.js";

// Downloads that end early or carry nothing: `sync` must fail clearly and install nothing half-way.

let server: ScriptedServer;
let data: Buffer;
/** How the download answers next. */
let download: "whole" | "truncated" | "headers-only" | "empty";

const ASSET = "/acme/cut/releases/download/v1.0.0/cut-1.0.0-linux-amd64.tar.gz";

before(async () => {
  data = await buildArtifact("tar.gz", { name: "cut", version: "1.0.0" });
  server = await startScriptedServer((path, req, res) => {
    if (path === "/repos/acme/cut/releases/tags/v1.0.0") {
      return sendJson(res, {
        tag_name: "v1.0.0",
        assets: [
          {
            name: "cut-1.0.0-linux-amd64.tar.gz",
            url: `${server.url}/repos/acme/cut/releases/assets/1`,
            browser_download_url: `${server.url}${ASSET}`,
            digest: `sha256:${createHash("sha256").update(data).digest("hex")}`,
          },
        ],
      });
    }
    if (path !== ASSET) {
      res.writeHead(404).end();
      return;
    }
    if (download === "empty") {
      // A 200 that carries no bytes at all, and says so.
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": 0 }).end();
      return;
    }
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": data.length });
    if (download === "whole") {
      res.end(data);
      return;
    }
    // The promised length never arrives: the connection closes after part of the body (or none of it).
    res.write(download === "truncated" ? data.subarray(0, data.length >> 1) : Buffer.alloc(0), () =>
      req.socket.destroy(),
    );
  });
});

after(async () => {
  await server.close();
});

const TOML = `[tools.cut]
version = "1.0.0"
[tools.cut.source]
type = "github_release"
repo = "acme/cut"
asset = "cut-{version}-{os}-{arch}.tar.gz"
bin = ["cut"]
platforms = ["linux/amd64"]
`;

async function lockedProject() {
  const dir = await tempDir("toolmgr-cut-");
  const home = await tempDir("toolmgr-cut-home-");
  await writeFile(join(dir, "toolmgr.toml"), TOML);
  const env = { CODEHOST_API_URL: server.url, TOOLMGR_HOME: home, CODEHOST_TOKEN: "" };
  const run = (...args: string[]) => runCli(args, { cwd: dir, env });
  const locked = await run("lock");
  assert.equal(locked.code, 0, locked.stderr);
  // `lock` records the project (what `prune` knows it by); a failed sync must leave that record as it is.
  const record = await treeSnapshot(join(home, "projects"));
  return { dir, home, run, record };
}

/** Nothing of the failed install is left: no tool directory, no shim, no download in the cache. */
async function assertNothingInstalled(p: { home: string; record: Map<string, string> }): Promise<void> {
  const { home } = p;
  await assert.rejects(stat(join(home, "tools")), "no install, not even a temporary directory");
  await assert.rejects(stat(join(home, "shims")), "no shim");
  assert.deepEqual(await treeSnapshot(join(home, "projects")), p.record, "the project's record is lock's");
  assert.deepEqual(await readdir(join(home, "cache", "sha256")), [], "no partial download kept");
}

for (const kind of ["truncated", "headers-only"] as const) {
  test(`sync retries a ${kind} download from the start, then fails naming the tool and URL; nothing installed`, async () => {
    const p = await lockedProject();
    const before = server.requests.length;
    download = kind;
    const r = await p.run("sync");
    const got = kind === "truncated" ? data.length >> 1 : 0;
    assert.equal(r.code, 1);
    assert.equal(r.stdout, "");
    assert.equal(
      r.stderr,
      `toolmgr: Cannot download "cut" from ${server.url}${ASSET}: the transfer ended after ${got} of ${data.length} bytes (tried 4 times); check the network and try again\n`,
    );
    assert.equal(server.requests.slice(before).filter((r) => r === ASSET).length, 4, "1 try and 3 retries");
    await assertNothingInstalled(p);

    download = "whole";
    const again = await p.run("sync");
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^cut {2}installed 1\.0\.0$/m);
  });
}

test("sync refuses an empty download as a digest mismatch, without retrying; nothing installed", async () => {
  const p = await lockedProject();
  const lock = await readFile(join(p.dir, "toolmgr.lock"), "utf8");
  const expected = /sha256 = "([0-9a-f]{64})"/.exec(lock)?.[1];
  const before = server.requests.length;
  download = "empty";
  const r = await p.run("sync");
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "");
  assert.equal(
    r.stderr,
    `toolmgr: Cannot verify "cut" from ${server.url}${ASSET}: expected sha256 ${expected}, got ${createHash("sha256").digest("hex")}; the artifact changed upstream or was corrupted in transit; nothing was installed\n`,
  );
  assert.equal(server.requests.slice(before).filter((r) => r === ASSET).length, 1);
  await assertNothingInstalled(p);
});
