import { sleep } from "./deadline.js";
import {
  type AliveEffect,
  APPEND_SCRIPT,
  appendArgs,
  appendResult,
  EXPIRE_SCRIPT,
  expireArgs,
  type RedisKeys,
  SETTLE_MS,
} from "./log-layout.js";
import type { RedisClient } from "./redis-client.js";

/** Waits of 100 ms an append makes at most while the store settles (SETTLE_MS, plus room for a replacement). */
const SETTLE_WAITS = (2 * SETTLE_MS) / 100;

/** The replica an append follows: the epoch it appends to, and its catch-up when that epoch is gone or settling. */
export interface AppendingReplica {
  readonly epoch: string | undefined;
  catchUp(): Promise<void>;
}

/**
 * Appends an encoded op to the log (APPEND_SCRIPT; with `expire`, a group key and why, EXPIRE_SCRIPT) under the
 * replica's epoch. While the store was just re-created (Redis came back empty) it waits for it to settle; when the
 * epoch changed it catches up (reload or re-seed) and tries again, three times. Resolves with the entry's sequence
 * number, "nothing-to-do" when EXPIRE_SCRIPT found nothing to append, or undefined when the store kept being
 * re-created.
 *
 * @throws {Error} what the Redis client throws (disconnected, timed out)
 */
export async function appendToLog(
  redis: RedisClient,
  keys: RedisKeys,
  append: {
    replica: AppendingReplica;
    text: string;
    alive?: AliveEffect | undefined;
    expire?: { group: string; cause: "expired" | "poll" } | undefined;
  },
): Promise<number | "nothing-to-do" | undefined> {
  const { replica, text, alive, expire } = append;
  if (replica.epoch === undefined) await replica.catchUp();
  let settleWaits = 0;
  for (let attempt = 0; attempt < 3; ) {
    const epoch = replica.epoch ?? "";
    const reply = appendResult(
      expire === undefined
        ? await redis.eval(APPEND_SCRIPT, 5, ...appendArgs(keys, { epoch, op: text, alive }))
        : await redis.eval(EXPIRE_SCRIPT, 6, ...expireArgs(keys, { epoch, op: text, ...expire })),
    );
    if (reply.kind === "nothing-to-do") return "nothing-to-do";
    if (reply.kind === "appended") return reply.seq;
    if (reply.kind === "settling" && settleWaits++ < SETTLE_WAITS) {
      // The store was just re-created (Redis came back empty): wait until replicas further along had their say.
      await sleep(Math.min(reply.waitMs, 100));
      // A replica with a copy further along may have replaced the store meanwhile: follow it before appending.
      await replica.catchUp();
    } else {
      // Another epoch (Redis restarted; another replica re-created the store) or none: reload or re-seed, retry.
      // A store still settling after all the waits above counts as an attempt too.
      attempt++;
      await replica.catchUp();
    }
  }
  return undefined;
}
