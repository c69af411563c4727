import assert from "node:assert/strict";
import { readdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir } from "../../test/support/temp-dir.js";
import { createFileResponseCache } from "./response-cache.js";

const key = { url: "https://api.example.com/repos/a/b/releases/tags/v1.0.0", accept: "application/json" };
const other = { url: "https://api.example.com/repos/a/c", accept: "application/json" };
const DAY = 24 * 3600 * 1000;

test("createFileResponseCache() remembers answers once flushed, by URL and media type, in one file", async () => {
  const dir = join(await tempDir("toolmgr-http-cache-"), "http");
  const path = join(dir, "project.json");
  const cache = createFileResponseCache(path);
  assert.equal(await cache.get(key), undefined, "a missing file is an empty cache");
  cache.set(key, { etag: 'W/"1"', body: "{}", link: '<x>; rel="next"' });
  cache.set(other, { etag: 'W/"2"', body: "[]" });
  cache.flush();
  assert.deepEqual(await readdir(dir), ["project.json"], "one file, no temporary left");
  const again = createFileResponseCache(path);
  assert.deepEqual(await again.get(key), { etag: 'W/"1"', body: "{}", link: '<x>; rel="next"' });
  assert.deepEqual(await again.get(other), { etag: 'W/"2"', body: "[]" });
  assert.equal(await again.get({ ...key, accept: "application/vnd.github.sha" }), undefined);
});

test("createFileResponseCache() drops entries no lock asked for in 30 days, and reads a damaged file as empty", async () => {
  const path = join(await tempDir("toolmgr-http-cache-"), "project.json");
  let now = 0;
  const first = createFileResponseCache(path, { now: () => now });
  first.set(key, { etag: "a", body: "1" });
  first.set(other, { etag: "b", body: "2" });
  first.flush();
  now = 20 * DAY;
  const second = createFileResponseCache(path, { now: () => now });
  assert.ok(await second.get(key), "asking for an entry keeps it");
  second.flush();
  const unchanged = await stat(path);
  now = 20 * DAY + 1000;
  const same = createFileResponseCache(path, { now: () => now });
  assert.ok(await same.get(key));
  same.flush();
  assert.equal(
    (await stat(path)).ino,
    unchanged.ino,
    "a re-lock within a day rewrites nothing (a rewrite renames a new file in)",
  );
  now = 40 * DAY;
  const third = createFileResponseCache(path, { now: () => now });
  assert.ok(await third.get(key));
  assert.equal(await third.get(other), undefined, "unused for 40 days");
  await writeFile(path, "{");
  assert.equal(await createFileResponseCache(path).get(key), undefined);
});

test("createFileResponseCache() ignores a place it cannot write", async () => {
  const base = await tempDir("toolmgr-http-cache-");
  await writeFile(join(base, "file"), "");
  const cache = createFileResponseCache(join(base, "file", "http", "p.json"));
  cache.set(key, { etag: "x", body: "y" });
  assert.doesNotThrow(() => cache.flush());
});
