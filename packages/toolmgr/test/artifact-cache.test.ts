import assert from "node:assert/strict";
import { mkdir, readdir, readFile, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { DigestMismatchError, MissingTokenError } from "../src/errors.js";
import { createHttpClient } from "../src/http/client.js";
import { createCodeHost } from "../src/http/code-host.js";
import { fetchArtifact } from "../src/store/artifact-cache.js";
import { cachedArtifactPath, type StoreLayout, storeLayout } from "../src/store/layout.js";
import { FakeCodeHost, sha256 } from "./support/fake-code-host.js";
import { tempDir } from "./support/temp-dir.js";

let host: FakeCodeHost;
const data = Buffer.from("the artifact bytes\n".repeat(1000));
const secretData = Buffer.from("private artifact");
let publicUrl = "";
let privateApiUrl = "";
let privateUrl = "";

before(async () => {
  host = await FakeCodeHost.start();
  host.addRepo("acme/open");
  host.addRelease("acme/open", { tag: "v1.0.0", assets: [{ name: "open.tar.gz", data, digest: false }] });
  host.addRepo("acme/secret", { private: true });
  host.addRelease("acme/secret", { tag: "v1.0.0", assets: [{ name: "secret.tar.gz", data: secretData }] });
  publicUrl = host.browserUrl("acme/open", "v1.0.0", "open.tar.gz");
  const release = await createCodeHost(client(host.token)).release("acme/secret", "v1.0.0");
  privateApiUrl = release?.assets[0]?.apiUrl ?? "";
  privateUrl = release?.assets[0]?.browserUrl ?? "";
});

after(async () => {
  await host.close();
});

function client(token?: string) {
  return createHttpClient({ fetch: globalThis.fetch, apiBase: host.apiUrl, token, sleep: async () => {} });
}

async function layout(): Promise<StoreLayout> {
  return storeLayout(await tempDir("toolmgr-cache-"));
}

/** Files in the cache directory other than finished artifacts (temporary downloads). */
async function leftovers(l: StoreLayout): Promise<string[]> {
  return (await readdir(l.cacheDir)).filter((name) => !/^[0-9a-f]{64}$/.test(name));
}

test("trust on first use: the download is hashed while streaming and stored under its digest", async () => {
  const l = await layout();
  const progress: number[] = [];
  const got = await fetchArtifact(
    { tool: "open", url: publicUrl },
    { layout: l, client: client(), hasToken: false, onProgress: (p) => progress.push(p.received) },
  );
  assert.equal(got.sha256, sha256(data));
  assert.equal(got.path, cachedArtifactPath(l, sha256(data)));
  assert.equal(got.cacheHit, false);
  assert.deepEqual(await readFile(got.path), data);
  assert.equal(progress.at(-1), data.length);
  assert.deepEqual(await leftovers(l), []);
});

test("a cache hit is re-hashed and used without the network", async () => {
  const l = await layout();
  await fetchArtifact({ tool: "open", url: publicUrl }, { layout: l, client: client(), hasToken: false });
  const downloads = host.count("storage:");
  const hit = await fetchArtifact(
    { tool: "open", url: publicUrl, sha256: sha256(data) },
    { layout: l, client: client(), hasToken: false },
  );
  assert.equal(hit.cacheHit, true);
  assert.equal(host.count("storage:"), downloads);
});

test("a tampered or truncated cache file is discarded and downloaded again", async () => {
  const l = await layout();
  const first = await fetchArtifact(
    { tool: "open", url: publicUrl },
    { layout: l, client: client(), hasToken: false },
  );
  for (const damage of [Buffer.from("evil"), data.subarray(0, 100)]) {
    await writeFile(first.path, damage);
    const downloads = host.count("storage:");
    const again = await fetchArtifact(
      { tool: "open", url: publicUrl, sha256: sha256(data) },
      { layout: l, client: client(), hasToken: false },
    );
    assert.equal(again.cacheHit, false);
    assert.equal(host.count("storage:"), downloads + 1);
    assert.deepEqual(await readFile(again.path), data);
  }
});

test("a digest mismatch names tool, URL, expected and actual digest, and leaves nothing behind", async () => {
  const l = await layout();
  const expected = "f".repeat(64);
  await assert.rejects(
    fetchArtifact(
      { tool: "open", url: publicUrl, sha256: expected },
      { layout: l, client: client(), hasToken: false },
    ),
    (error: unknown) => {
      assert.ok(error instanceof DigestMismatchError);
      assert.match(error.message, /"open"/);
      assert.ok(error.message.includes(publicUrl));
      assert.ok(error.message.includes(expected));
      assert.ok(error.message.includes(sha256(data)));
      return true;
    },
  );
  assert.deepEqual(await readdir(l.cacheDir), []);
});

test("a private artifact needs the token, comes from the API URL, and the token stays on the API origin", async () => {
  const l = await layout();
  await assert.rejects(
    fetchArtifact(
      { tool: "secret", url: privateUrl, apiUrl: privateApiUrl },
      { layout: l, client: client(), hasToken: false },
    ),
    (error: unknown) => error instanceof MissingTokenError && /CODEHOST_TOKEN/.test(error.message),
  );
  const leaks = host.tokenLeaks.length;
  const got = await fetchArtifact(
    { tool: "secret", url: privateUrl, apiUrl: privateApiUrl, sha256: sha256(secretData) },
    { layout: l, client: client(host.token), hasToken: true },
  );
  assert.deepEqual(await readFile(got.path), secretData);
  assert.deepEqual(host.tokenLeaks.slice(leaks), []);
});

test("a download left half-done by a killed process over a day ago is removed; a young one is left alone", async () => {
  const l = await layout();
  await mkdir(l.cacheDir, { recursive: true });
  const old = join(l.cacheDir, ".tmp-0123456789abcdef");
  const young = join(l.cacheDir, ".tmp-fedcba9876543210");
  await writeFile(old, "partial");
  await writeFile(young, "partial");
  const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600 * 1000);
  await utimes(old, twoDaysAgo, twoDaysAgo);
  await fetchArtifact({ tool: "open", url: publicUrl }, { layout: l, client: client(), hasToken: false });
  assert.deepEqual(await leftovers(l), [".tmp-fedcba9876543210"]);
});
