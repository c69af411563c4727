// How a replica follows the log in Redis without being read (Debian's redis-server): its blocking read of the stream,
// one catch-up for a burst, an entry of the earlier format, and snapshots (written, the log trimmed, a new replica
// starting from one). Reads catching up first is covered in test/redis-replicas.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Redis } from "ioredis";
import type { MetricFamily } from "../src/exposition/metric-family.js";
import type { Log } from "../src/logger.js";
import { decodeSnapshot, encodeOp, redisKeys } from "../src/store/redis/log-layout.js";
import { RedisStore } from "../src/store/redis/redis-store.js";
import { parseRedisUrl } from "../src/store/redis/redis-url.js";
import { stop, stopAll } from "./support/processes.js";
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

function replica(options: {
  prefix: string;
  pollMs: number;
  snapshotEvery?: number;
  keepBehindSnapshot?: number;
  url?: string;
  log?: Log;
}): RedisStore {
  const { url: at = url, ...rest } = options;
  const store = new RedisStore({ target: parseRedisUrl(at), memory: {}, log: () => undefined, ...rest });
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

test("a follower applies a burst of another replica's pushes by its blocking read alone, without being read or polling", async () => {
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

test("a follower applies an entry put straight into the stream, of the earlier entry format, without polling", async () => {
  const follower = replica({ prefix: "missed", pollMs: 600_000 });
  assert.ok(await follower.waitLoaded(5000));
  assert.equal(applied(follower), 0);
  // An entry appended as the append script does, by another client: only the follower's blocking XREAD sees it. It is
  // of the earlier entry format (parsed families, not rendered lines), which a log may still hold.
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
  assert.ok(await until(() => applied(follower) === 1, 5000), "the follower did not catch up");
  assert.deepEqual(
    follower.groups().map((g) => g.labels),
    [{ job: "missed" }],
  );
  assert.deepEqual(
    [...(follower.families().find((f) => f.name === "follow_test")?.lines ?? [])],
    ['follow_test{instance="",job="missed"} 1'],
  );
});

test("a replica whose Redis user may not XREAD says so once and follows the log by the poll", async () => {
  const admin = new Redis(url);
  try {
    await admin.call("ACL", "SETUSER", "noxread", "on", ">secret", "~*", "&*", "+@all", "-xread");
  } finally {
    admin.disconnect();
  }
  const warnings: string[] = [];
  const follower = replica({
    url: url.replace("redis://", "redis://noxread:secret@"),
    log: (level, msg) => {
      if (level === "warn") warnings.push(msg);
    },
    prefix: "noxread",
    pollMs: 200,
  });
  const writer = replica({ prefix: "noxread", pollMs: 600_000 });
  assert.ok(await writer.waitLoaded(5000));
  assert.ok(await follower.waitLoaded(5000));
  for (let i = 0; i < 3; i++) {
    const refused = await writer.push({
      labels: { job: "noxread", instance: `i${i}` },
      families: family(i),
      replace: true,
      now: new Date(),
      check: true,
    });
    assert.equal(refused, undefined);
  }
  assert.ok(await until(() => applied(follower) === 3, 5000), `follower at ${applied(follower)} of 3`);
  assert.ok(await until(() => warnings.length > 0, 5000), "no warning about the refused XREAD");
  // The read is retried every 500 ms; the warning stays one.
  await new Promise((r) => setTimeout(r, 1200));
  assert.deepEqual(
    warnings.map((w) => w.split(";")[0]),
    ["Redis refused the blocking read of the log (XREAD)"],
  );
});

test("after Redis restarts empty, a follower's blocking read resumes: it follows a push without polling or being read", async () => {
  const own = await startRedis();
  const writer = replica({ prefix: "restart", pollMs: 600_000, url: own.url });
  const follower = replica({ prefix: "restart", pollMs: 600_000, url: own.url });
  assert.ok(await writer.waitLoaded(5000));
  assert.ok(await follower.waitLoaded(5000));
  const push = (i: number) =>
    writer.push({
      labels: { job: "restart", instance: `i${i}` },
      families: family(i),
      replace: true,
      now: new Date(),
      check: true,
    });
  assert.equal(await push(1), undefined);
  assert.ok(
    await until(() => applied(follower) === 1, 5000),
    "the follower did not follow before the restart",
  );
  await stop(own.child);
  await startRedis(own.port);
  // The store is written back (a copy at entry 1), settles for 2 s, then takes the push as entry 2.
  let refused: Awaited<ReturnType<typeof push>> | Error = new Error("not sent");
  for (let i = 0; i < 50 && refused !== undefined; i++) {
    refused = await push(2).catch((error: Error) => error);
    if (refused !== undefined) await new Promise((r) => setTimeout(r, 200));
  }
  assert.equal(refused, undefined);
  assert.ok(await until(() => applied(follower) === 2, 5000), `follower at ${applied(follower)} of 2`);
  assert.equal(follower.groups().length, 2);
});

test("a write that finds the store settling through all its waits is refused: 'kept being re-created'", async () => {
  const store = replica({ prefix: "settling", pollMs: 600_000 });
  assert.ok(await store.waitLoaded(5000));
  // As if Redis had just come back empty and the store were being re-created, for longer than a write waits.
  const direct = new Redis(url);
  try {
    await direct.set(redisKeys("settling").settling, "1", "PX", 60_000);
  } finally {
    direct.disconnect();
  }
  const write = store.push({
    labels: { job: "settling" },
    families: family(1),
    replace: true,
    now: new Date(),
    check: true,
  });
  await assert.rejects(
    write,
    /the change was not stored: the store in Redis at redis:\/\/127\.0\.0\.1:\d+\/0 kept being re-created; retry/,
  );
  assert.equal(store.groups().length, 0);
});

test("every snapshotEvery entries the appending replica writes the store and trims the log; a new replica starts from it", async () => {
  const writer = replica({ prefix: "snap", pollMs: 600_000, snapshotEvery: 10, keepBehindSnapshot: 5 });
  assert.ok(await writer.waitLoaded(5000));
  for (let i = 0; i < 25; i++) {
    const refused = await writer.push({
      labels: { job: "snap", instance: `i${i % 7}` },
      families: family(i),
      replace: true,
      now: new Date(1_700_000_000_000 + i),
      check: true,
    });
    assert.equal(refused, undefined);
  }
  const keys = redisKeys("snap");
  const direct = new Redis(url);
  try {
    // Written after the answer to entry 20, so poll for it.
    let snapshotSeq: string | null = null;
    for (let i = 0; i < 100 && snapshotSeq !== "20"; i++) {
      snapshotSeq = await direct.hget(keys.snapshot, "seq");
      if (snapshotSeq !== "20") await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(snapshotSeq, "20");
    const groups = decodeSnapshot(await direct.hget(keys.snapshot, "data"));
    assert.equal(groups.length, 7);
    // Five entries kept behind the snapshot (16-20), then the five after it.
    const log = (await direct.xrange(keys.log, "-", "+")).map(([id]) => id);
    assert.deepEqual(log, ["16-0", "17-0", "18-0", "19-0", "20-0", "21-0", "22-0", "23-0", "24-0", "25-0"]);
  } finally {
    direct.disconnect();
  }
  const late = replica({ prefix: "snap", pollMs: 600_000 });
  assert.ok(await late.waitLoaded(5000));
  await late.refresh();
  assert.equal(applied(late), 25);
  // An absent HELP is left out of JSON: compare it as read, present or not.
  const view = (store: RedisStore) => store.families().map((f) => ({ ...f, help: f.help }));
  assert.deepEqual(view(late), view(writer));
  assert.deepEqual(
    late.groups().map((g) => [g.labels, g.pushTime, g.failureTime, [...g.pushedAt]]),
    writer.groups().map((g) => [g.labels, g.pushTime, g.failureTime, [...g.pushedAt]]),
  );
});
