// RedisStore's logic without a server: replicas on an in-memory Redis (test/support/fake-redis.ts) behind the
// client seam. The same behaviour on a real redis-server: test/redis-*.peers.test.ts.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { FakeRedisServer } from "../../../test/support/fake-redis.js";
import { StoreUnavailableError } from "../../errors.js";
import { parseText } from "../../exposition/parse-text.js";
import type { Log } from "../../logger.js";
import type { PushRequest } from "../metric-store.js";
import { redisKeys } from "./log-layout.js";
import { RedisStore } from "./redis-store.js";

const stores: RedisStore[] = [];
after(() => {
  for (const s of stores) s.close();
});

const logged: string[] = [];
const log: Log = (level, msg) => logged.push(`${level} ${msg}`);

async function replica(
  server: FakeRedisServer,
  options: { snapshotEvery?: number; keepBehindSnapshot?: number; groupTtlMs?: number } = {},
): Promise<RedisStore> {
  const store = new RedisStore({
    target: { host: "fake", port: 6379, db: 0, tls: false, username: undefined, password: undefined },
    memory: {},
    log,
    connect: server.connect,
    pollMs: 50,
    ...options,
  });
  stores.push(store);
  assert.equal(await store.waitLoaded(2000), true);
  return store;
}

const request = (body: string, options: { job?: string; replace?: boolean } = {}): PushRequest => ({
  labels: { job: options.job ?? "j" },
  families: parseText(body),
  replace: options.replace ?? true,
  now: new Date(),
  check: true,
});

/** The stored lines of family `name` on a replica after it caught up. */
async function lines(store: RedisStore, name: string): Promise<readonly string[]> {
  await store.refresh();
  return [...(store.families().find((f) => f.name === name)?.lines ?? [])];
}

test("a push answered by one replica is in the next read of another (read after write)", async () => {
  const server = new FakeRedisServer();
  const [a, b] = [await replica(server), await replica(server)];
  assert.equal(await a.push(request("m 1\n")), undefined);
  assert.deepEqual(await lines(b, "m"), ['m{instance="",job="j"} 1']);
  await b.push(request("m 2\n"));
  assert.deepEqual(await lines(a, "m"), ['m{instance="",job="j"} 2']);
  assert.equal(await a.notReady(), undefined);
});

test("conflicting pushes through two replicas end as one gateway receiving them in the log's order", async () => {
  const server = new FakeRedisServer();
  const [a, b] = [await replica(server), await replica(server)];
  const [first, second] = await Promise.all([
    a.push(request("# TYPE x counter\nx 1\n", { job: "one" })),
    b.push(request("# TYPE x gauge\nx 1\n", { job: "two" })),
  ]);
  // Exactly one is refused, with upstream's consistency message, and both replicas hold the same store.
  assert.equal([first, second].filter((r) => r !== undefined).length, 1);
  assert.match((first ?? second)?.message ?? "", /is not a (COUNTER|GAUGE)/);
  await Promise.all([a.refresh(), b.refresh()]);
  const view = (s: RedisStore) =>
    s
      .groups()
      .map((g) => [g.labels.job, [...g.families.keys()].sort(), g.failureTime > 0])
      .sort();
  assert.deepEqual(view(a), view(b));
});

test("POST, PUT, DELETE and wipe reach every replica", async () => {
  const server = new FakeRedisServer();
  const [a, b] = [await replica(server), await replica(server)];
  await a.push(request("a 1\nb 2\n"));
  await b.push(request("a 3\n", { replace: false }));
  assert.deepEqual(await lines(a, "a"), ['a{instance="",job="j"} 3']);
  assert.deepEqual(await lines(a, "b"), ['b{instance="",job="j"} 2']);
  await a.push(request("c 1\n", { job: "k" }));
  await b.delete({ job: "j" });
  await a.refresh();
  assert.deepEqual(
    a.groups().map((g) => g.labels),
    [{ job: "k" }],
  );
  await a.wipe();
  await b.refresh();
  assert.deepEqual(b.groups(), []);
});

test("Redis unreachable: a push is refused with 503's error, reads serve the cache, ready says why; back, it works", async () => {
  const server = new FakeRedisServer();
  const a = await replica(server);
  await a.push(request("m 1\n"));
  server.setDown(true);
  await assert.rejects(a.push(request("m 2\n")), StoreUnavailableError);
  await assert.rejects(
    a.delete({ job: "j" }),
    /was not stored: Redis at redis:\/\/fake:6379\/0 is unreachable/,
  );
  assert.deepEqual(await lines(a, "m"), ['m{instance="",job="j"} 1']);
  assert.match((await a.notReady()) ?? "", /is unreachable/);
  server.setDown(false);
  assert.equal(await a.push(request("m 3\n")), undefined);
  assert.deepEqual(await lines(a, "m"), ['m{instance="",job="j"} 3']);
});

test("Redis back empty: the replica that notices writes its copy back, the others follow it; nothing answered is lost", async () => {
  const server = new FakeRedisServer();
  const [a, b] = [await replica(server), await replica(server)];
  await a.push(request("m 1\n"));
  await b.refresh();
  server.flushAll();
  await a.refresh();
  // Appends wait while the re-created store settles (SETTLE_MS), then go on.
  assert.equal(await b.push(request("n 2\n", { job: "k" })), undefined);
  assert.deepEqual(await lines(b, "m"), ['m{instance="",job="j"} 1']);
  assert.deepEqual(await lines(a, "n"), ['n{instance="",job="k"} 2']);
  assert.ok(logged.some((l) => /Redis came back without the store; wrote this replica's copy back/.test(l)));
});

test("a replica started later loads the snapshot and the log after it (the log trimmed behind the snapshot)", async () => {
  const server = new FakeRedisServer();
  const a = await replica(server, { snapshotEvery: 3, keepBehindSnapshot: 0 });
  for (let i = 0; i < 7; i++) await a.push(request(`m ${i}\n`, { job: `g${i}` }));
  // Written after the answer that triggered it (setImmediate).
  await new Promise((resolve) => setImmediate(resolve));
  assert.ok((server.calls.get("eval:snapshot") ?? 0) >= 1, JSON.stringify([...server.calls]));
  const late = await replica(server);
  assert.deepEqual(
    late
      .groups()
      .map((g) => g.labels.job)
      .sort(),
    ["g0", "g1", "g2", "g3", "g4", "g5", "g6"],
  );
});

test("a replica follows another's pushes without being read (blocking read of the log)", async () => {
  const server = new FakeRedisServer();
  const [a, b] = [await replica(server), await replica(server)];
  await a.push(request("m 1\n"));
  const deadline = Date.now() + 3000;
  while (b.families().every((f) => f.name !== "m") && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(
    [...(b.families().find((f) => f.name === "m")?.lines ?? [])],
    ['m{instance="",job="j"} 1'],
  );
});

test("--push.group-ttl: a group whose deadline passed is dropped by every replica alike; a pushed one stays", async () => {
  const server = new FakeRedisServer();
  const [a, b] = [await replica(server, { groupTtlMs: 400 }), await replica(server, { groupTtlMs: 400 })];
  await a.push(request("old 1\n", { job: "old" }));
  await a.push(request("kept 1\n", { job: "kept" }));
  const deadline = Date.now() + 5000;
  const jobs = async (s: RedisStore) => {
    await s.refresh();
    return s
      .groups()
      .map((g) => g.labels.job)
      .sort();
  };
  while ((await jobs(b)).includes("old") && Date.now() < deadline) {
    await b.push(request("kept 2\n", { job: "kept" }));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.deepEqual(await jobs(b), ["kept"]);
  assert.deepEqual(await jobs(a), ["kept"]);
  // One expire op for the one deadline, however many replicas polled.
  const expires = server
    .stream(redisKeys().log)
    .filter(([, fields]) => fields[1]?.startsWith('{"kind":"expire"'));
  assert.equal(expires.length, 1);
});
