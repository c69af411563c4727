// exporter-toolkit web/cache_test.go TestCacheSize, translated.
import assert from "node:assert/strict";
import { test } from "node:test";
import { AuthCache } from "./auth-cache.js";

test("the cache holds at most 100 verdicts and drops to 90 when full (exporter-toolkit TestCacheSize)", () => {
  const cache = new AuthCache();
  let expected = 0;
  for (let i = 0; i < 200; i++) {
    cache.set(`foo${i}`, true);
    expected++;
    if (expected > 100) expected = 90;
    assert.equal(cache.size, expected, `iteration ${i}`);
  }
});

test("a verdict is found again under its key, a false one too", () => {
  const cache = new AuthCache();
  cache.set("a", true);
  cache.set("b", false);
  assert.equal(cache.get("a"), true);
  assert.equal(cache.get("b"), false);
  assert.equal(cache.get("c"), undefined);
});
