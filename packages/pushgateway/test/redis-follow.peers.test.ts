// How a replica follows the log in Redis without being read (Debian's redis-server): PUBLISHes coalesced into one
// catch-up, and the poll for a PUBLISH it never got. Reads catching up first is covered in test/redis-replicas.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Redis } from "ioredis";
import type { MetricFamily } from "../src/exposition/metric-family.js";
import { encodeOp, redisKeys } from "../src/store/redis-log.js";
import { RedisStore } from "../src/store/redis-store.js";
import { parseRedisUrl } from "../src/store/redis-url.js";
import { stopAll } from "./support/processes.js";
import { startRedis } from "./support/redis-server.js";

let url = "";
const stores: RedisStore[] = [];

before(async () => {
  url = (await startRedis()).url;
});

after(async () => {
  for (const s of stores) s.close();
  await stopAll();
});

function replica(options: { prefix: string; pollMs: number }): RedisStore {
  const store = new RedisStore({ target: parseRedisUrl(url), memory: {}, log: () => undefined, ...options });
  stores.push(store);
  return store;
}

/** The sequence number a replica has applied, read from its gauge (no read of Redis, unlike `refresh()`). */
function applied(store: RedisStore): number {
  const gauge = store.ownFamilies().find((f) => f.name === "pushgateway_redis_log_sequence");
  return gauge?.metrics[0]?.value ?? -1;
}

async function until(check: () => boolean, deadlineMs: number): Promise<boolean> {
  const end = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

const family = (value: number): MetricFamily[] => [
  { name: "follow_test", help: undefined, type: "gauge", metrics: [{ labels: [], value }] },
];

test("a follower applies a burst of another replica's pushes from the PUBLISHes alone, without being read", async () => {
  const writer = replica({ prefix: "burst", pollMs: 600_000 });
  const follower = replica({ prefix: "burst", pollMs: 600_000 });
  assert.ok(await writer.waitLoaded(5000));
  assert.ok(await follower.waitLoaded(5000));
  const pushes = Array.from({ length: 30 }, (_, i) =>
    writer.push({
      labels: { job: "burst", instance: `i${i}` },
      families: family(i),
      replace: true,
      now: new Date(),
      check: true,
    }),
  );
  assert.deepEqual(await Promise.all(pushes), new Array(30).fill(undefined));
  assert.equal(applied(writer), 30);
  assert.ok(await until(() => applied(follower) === 30, 5000), `follower at ${applied(follower)} of 30`);
  assert.equal(follower.groups().length, 30);
});

test("a follower that missed a PUBLISH catches up by the poll", async () => {
  const follower = replica({ prefix: "missed", pollMs: 200 });
  assert.ok(await follower.waitLoaded(5000));
  assert.equal(applied(follower), 0);
  // An entry appended as the append script does, but without its PUBLISH: as if the message was lost in a reconnect.
  // It is of the earlier entry format (parsed families, not rendered lines), which a log may still hold.
  const keys = redisKeys("missed");
  const op = encodeOp({
    kind: "push",
    origin: "elsewhere:1",
    labels: { job: "missed" },
    families: family(1),
    replace: true,
    nowMs: Date.now(),
    check: true,
  });
  const direct = new Redis(url);
  try {
    const seq = await direct.incr(keys.seq);
    await direct.xadd(keys.log, `${seq}-0`, "op", op);
  } finally {
    direct.disconnect();
  }
  assert.ok(await until(() => applied(follower) === 1, 5000), "the poll did not catch up");
  assert.deepEqual(
    follower.groups().map((g) => g.labels),
    [{ job: "missed" }],
  );
  assert.deepEqual(follower.families().find((f) => f.name === "follow_test")?.lines, [
    'follow_test{instance="",job="missed"} 1',
  ]);
});
