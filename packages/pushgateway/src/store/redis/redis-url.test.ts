import assert from "node:assert/strict";
import { test } from "node:test";
import { UsageError } from "../../errors.js";
import { parseRedisUrl, redactRedisUrl } from "./redis-url.js";

test("parseRedisUrl() reads host, port, database, ACL user and password", () => {
  assert.deepEqual(parseRedisUrl("redis://gw:s%40cret@redis.example:6380/2"), {
    host: "redis.example",
    port: 6380,
    db: 2,
    username: "gw",
    password: "s@cret",
    tls: false,
  });
  assert.deepEqual(parseRedisUrl("rediss://[::1]"), {
    host: "::1",
    port: 6379,
    db: 0,
    username: undefined,
    password: undefined,
    tls: true,
  });
});

test("a password from the file wins over the URL's", () => {
  assert.equal(parseRedisUrl("redis://:inurl@h/0", "fromfile").password, "fromfile");
});

test("parseRedisUrl() says what is wrong", () => {
  for (const [url, why] of [
    ["localhost:6379", /scheme must be redis:\/\/ or rediss:\/\//],
    ["http://h:1/0", /scheme must be redis:\/\/ or rediss:\/\/ \(TLS\), not http:/],
    ["redis://h/x", /database number/],
    ["redis://h/0?timeout=1", /query parameters/],
    ["not a url", /expected redis:\/\//],
  ] as const) {
    assert.throws(
      () => parseRedisUrl(url),
      (e: unknown) => e instanceof UsageError && why.test(e.message),
      url,
    );
  }
});

test("redactRedisUrl() hides the password only", () => {
  assert.equal(redactRedisUrl("redis://u:pw@h:1/0"), "redis://u:xxxxx@h:1/0");
  assert.equal(redactRedisUrl("redis://h:1/0"), "redis://h:1/0");
});
