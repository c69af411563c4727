import assert from "node:assert/strict";
import { mkdtemp, readdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { createFileResponseCache } from "./http-cache.js";

const key = { url: "https://api.example.com/repos/a/b/releases/tags/v1.0.0", accept: "application/json" };

test("createFileResponseCache() remembers an answer once flushed, by URL and media type", async () => {
  const dir = join(await mkdtemp(join(tmpdir(), "toolmgr-http-cache-")), "http");
  const cache = createFileResponseCache(dir);
  assert.equal(await cache.get(key), undefined, "a missing directory is an empty cache");
  cache.set(key, { etag: 'W/"1"', body: "{}", link: '<x>; rel="next"' });
  cache.flush();
  const [file = "", ...others] = await readdir(dir);
  assert.deepEqual(others, [], "one file, no temporary left");
  assert.match(file, /^[0-9a-f]{64}$/);
  const again = createFileResponseCache(dir);
  assert.deepEqual(await again.get(key), { etag: 'W/"1"', body: "{}", link: '<x>; rel="next"' });
  assert.equal(await again.get({ ...key, accept: "application/vnd.github.sha" }), undefined);
  // An entry whose URL does not match its key (a hash collision or a copied file) or that is damaged is a miss.
  await writeFile(join(dir, file), JSON.stringify({ url: "https://elsewhere", etag: "x", body: "" }));
  assert.equal(await createFileResponseCache(dir).get(key), undefined);
  await writeFile(join(dir, file), "{");
  assert.equal(await createFileResponseCache(dir).get(key), undefined);
});

test("createFileResponseCache() ignores a directory it cannot write", async () => {
  const base = await mkdtemp(join(tmpdir(), "toolmgr-http-cache-"));
  await writeFile(join(base, "file"), "");
  const cache = createFileResponseCache(join(base, "file", "http"));
  cache.set(key, { etag: "x", body: "y" });
  assert.doesNotThrow(() => cache.flush());
});
