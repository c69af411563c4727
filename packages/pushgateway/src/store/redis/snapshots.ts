import type { Log } from "../../logger.js";
import type { Group, PersistedGroup } from "../metric-store.js";
import {
  decodeSnapshot,
  encodeSnapshot,
  type RedisKeys,
  SNAPSHOT_SCRIPT,
  snapshotArgs,
} from "./log-layout.js";
import type { RedisClient } from "./redis-client.js";

/**
 * Entries between snapshots (the replica that appended an entry whose number is a multiple writes one and trims the
 * log): 1000, and 1000 more per 50k series held. Writing the store costs with its size (8 MB of JSON at 100k series,
 * 10-15 % of three replicas' CPU under concurrent pushes when written every 1000 entries, bench/pushgateway/README.md),
 * so a larger store is written less often, at the price of a longer log in Redis. Every replica holds the same store
 * when it applies an entry, so they agree on the period.
 */
export function snapshotPeriod(seriesCount: number): number {
  return 1000 * Math.max(1, Math.ceil(seriesCount / 50_000));
}

/** Writes `groups`, as of entry `seq`, as the snapshot and trims the log behind it (keeping `keep` entries). */
export function writeSnapshot(
  redis: RedisClient,
  keys: RedisKeys,
  options: { epoch: string; seq: number; groups: readonly Group[]; keep: number; log: Log },
): void {
  const args = snapshotArgs(keys, {
    epoch: options.epoch,
    seq: options.seq,
    data: encodeSnapshot(options.groups),
    keep: options.keep,
  });
  redis.eval(SNAPSHOT_SCRIPT, 3, ...args).catch((error: Error) => {
    options.log("warn", "could not write the snapshot to Redis; the log keeps growing until one succeeds", {
      err: error.message,
    });
  });
}

/**
 * The snapshot with the epoch it belongs to, read in one transaction.
 *
 * @throws {Error} when the store vanished meanwhile (Redis emptied)
 */
export async function readSnapshot(
  redis: RedisClient,
  keys: RedisKeys,
): Promise<{ epoch: string; seq: number; groups: PersistedGroup[] }> {
  const replies = await redis.multi().get(keys.epoch).hmget(keys.snapshot, "seq", "data").exec();
  const epoch = replies?.[0]?.[1] as string | null | undefined;
  const [seqText, data] = (replies?.[1]?.[1] ?? [null, null]) as [string | null, string | null];
  if (epoch === null || epoch === undefined) throw new Error("the store in Redis vanished while loading");
  return { epoch, seq: Number(seqText ?? "0"), groups: decodeSnapshot(data) };
}
