// The Lua scripts of the shared store run by a real redis-server (Debian's): which copy re-creates an emptied store
// (SEED_SCRIPT) and appends held back while it settles. The replicas' behaviour around them is in redis-replicas.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Redis } from "ioredis";
import {
  APPEND_SCRIPT,
  appendArgs,
  appendResult,
  redisKeys,
  SEED_SCRIPT,
  seedArgs,
} from "../src/store/redis/log-layout.js";
import { stopAll } from "./support/processes.js";
import { startRedis } from "./support/redis-server.js";

let client: Redis;

before(async () => {
  client = new Redis((await startRedis()).url);
});

after(async () => {
  client.disconnect();
  await stopAll();
});

const keys = redisKeys("scripts");
const seed = (epoch: string, seq: number, from: string | undefined) =>
  client.eval(SEED_SCRIPT, 5, ...seedArgs(keys, { epoch, seq, data: `copy of ${epoch}`, from }));
const append = async (epoch: string) =>
  appendResult(await client.eval(APPEND_SCRIPT, 5, ...appendArgs(keys, { epoch, op: "{}" })));

test("an emptied store is re-created by the copy furthest along the same log, until something is appended", async () => {
  // A brand-new replica (no log) comes first: any replica with a real copy replaces it.
  assert.equal(await seed("fresh", 0, undefined), "fresh");
  assert.ok((await client.pttl(keys.settling)) > 0);
  assert.equal(await seed("e2", 5, "e1"), "e2");
  assert.equal(await client.hget(keys.snapshot, "data"), "copy of e2");
  // Of the same log: only a copy further along replaces it; one of another log, or none, never does.
  assert.equal(await seed("behind", 4, "e1"), "e2");
  assert.equal(await seed("same", 5, "e1"), "e2");
  assert.equal(await seed("other-log", 99, "e0"), "e2");
  assert.equal(await seed("fresh-again", 0, undefined), "e2");
  assert.equal(await seed("e3", 7, "e1"), "e3");
  assert.deepEqual(await client.hmget(keys.snapshot, "seq", "from", "data"), ["7", "e1", "copy of e3"]);
  assert.equal(await client.get(keys.seq), "7");

  // While it settles, appends wait; the replica that re-created it is told for how long.
  const held = await append("e3");
  assert.equal(held.kind, "settling");
  assert.ok(held.kind === "settling" && held.waitMs > 0 && held.waitMs <= 2000, JSON.stringify(held));
  assert.equal(await client.xlen(keys.log), 0);

  // Settled (the key expired): appends go on, and once one is in, no copy replaces the store any more.
  await client.del(keys.settling);
  assert.deepEqual(await append("e3"), { kind: "appended", seq: 8 });
  await client.set(keys.settling, "1", "PX", 2000);
  assert.equal(await seed("e4", 50, "e1"), "e3", "an entry was appended since the seed");
});
