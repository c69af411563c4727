import type { Group } from "../metric-store.js";
import { encodeSnapshot, type RedisKeys, SEED_SCRIPT, seedArgs } from "./log-layout.js";
import type { RedisClient } from "./redis-client.js";

// Seeding: creating the store in Redis from a replica's copy, when Redis holds none (first start, or Redis came back
// empty), and deciding whether a store just created that way came from a copy behind this one.

/**
 * Whether the store in Redis was just re-created (still settling, nothing appended) from a copy behind this
 * replica's (which follows `epoch` and has applied `seq`): of the same log at a lower sequence number, or of none.
 * SEED_SCRIPT checks it again atomically.
 */
export async function storeBehindCopy(
  redis: RedisClient,
  keys: RedisKeys,
  copy: { epoch: string | undefined; seq: number },
): Promise<boolean> {
  const replies = await redis
    .multi()
    .exists(keys.settling)
    .get(keys.seq)
    .hmget(keys.snapshot, "seq", "from")
    .exec();
  type Replies = [[null, number], [null, string | null], [null, [string | null, string | null]]];
  const [[, settling], [, seq], [, [snapshotSeq, from]]] = (replies ?? []) as Replies;
  if (settling !== 1 || seq === null || seq !== snapshotSeq) return false;
  return from === "" || (from === copy.epoch && copy.seq > Number(seq));
}

/**
 * Creates the store in Redis from a copy (SEED_SCRIPT): `groups` as of entry `seq`, under the new epoch `fresh`,
 * following `from` (undefined: none). Resolves with the epoch in force afterwards: `fresh` when this copy won.
 */
export async function seedStore(
  redis: RedisClient,
  keys: RedisKeys,
  options: { fresh: string; seq: number; groups: readonly Group[]; from: string | undefined },
): Promise<unknown> {
  return redis.eval(
    SEED_SCRIPT,
    5,
    ...seedArgs(keys, {
      epoch: options.fresh,
      seq: options.seq,
      data: encodeSnapshot(options.groups),
      from: options.from,
    }),
  );
}
