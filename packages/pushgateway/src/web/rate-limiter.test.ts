import assert from "node:assert/strict";
import { test } from "node:test";
import { RateLimiter } from "./rate-limiter.js";

test("a full bucket of `burst` tokens, one more per interval (x/time/rate)", () => {
  let now = 0;
  const limiter = new RateLimiter({ burst: 2, intervalMs: 1000, now: () => now });
  assert.deepEqual([limiter.allow(), limiter.allow(), limiter.allow()], [true, true, false]);
  now = 500;
  assert.equal(limiter.allow(), false);
  now = 1000;
  assert.deepEqual([limiter.allow(), limiter.allow()], [true, false]);
  now = 10_000;
  assert.deepEqual([limiter.allow(), limiter.allow(), limiter.allow()], [true, true, false]);
});

test("burst 0 refuses every request, as upstream's web_config_rate_limiter_one_second.yaml", () => {
  const limiter = new RateLimiter({ burst: 0, intervalMs: 1000, now: () => 5000 });
  assert.equal(limiter.allow(), false);
});
