import type { Log } from "../../logger.js";
import { sleep } from "./deadline.js";
import { isReplyError, type RedisClient } from "./redis-client.js";

/**
 * How long a replica waits, once a blocking read of the log saw a new entry, before it catches up: every entry
 * appended meanwhile is read in the same round trip, and its own entry, seen before its append is answered, is applied
 * from the request by then (so it costs no read). Reads never wait for this: they catch up first. 100 ms rather than
 * 20: followers spent ~10 % less CPU per entry and the answering replica's PUTs ~9 % less time
 * (bench/pushgateway/README.md); the price is at most 100 ms of entries applied by the first read after a burst.
 */
const FOLLOW_DELAY_MS = 100;

/** How long one blocking read of the log (XREAD BLOCK, on a connection of its own) waits before it is sent again. */
const FOLLOW_BLOCK_MS = 5000;

/** The pause before a blocking read that failed is sent again. */
const FOLLOW_RETRY_MS = 500;

/**
 * Follows the log between reads with a blocking XREAD on a connection of its own (`tail`): it returns as soon as an
 * entry after the last one applied (`seq()`) is in the stream (at once when one already is); the replica then waits
 * FOLLOW_DELAY_MS and catches up (`catchUp`), so one wake-up and one catch-up cover every entry appended meanwhile. A
 * PUBLISH per entry woke every replica for every push, its own included (bench/pushgateway/README.md). After Redis
 * came back with a new store the numbers may restart below this replica's, and the read waits: the poll and every
 * read still ask Redis for the epoch. Runs until `closed()`.
 */
export async function followLog(options: {
  tail: RedisClient;
  log: string;
  seq: () => number;
  closed: () => boolean;
  catchUp: () => Promise<void>;
  logger: Log;
  where: string;
}): Promise<void> {
  // Whether Redis refused the blocking read (an ACL without XREAD, say): said once, then the poll follows.
  let refused = false;
  while (!options.closed()) {
    try {
      const seen = await options.tail.xread(
        "COUNT",
        1,
        "BLOCK",
        FOLLOW_BLOCK_MS,
        "STREAMS",
        options.log,
        `${options.seq()}-0`,
      );
      if (seen === null || options.closed()) continue;
      await sleep(FOLLOW_DELAY_MS);
      await options.catchUp();
    } catch (error) {
      // The connection dropped (the poll and the reads report that), or Redis refused the read: read again shortly.
      if (isReplyError(error) && !refused && !options.closed()) {
        refused = true;
        options.logger(
          "warn",
          "Redis refused the blocking read of the log (XREAD); this replica follows it by the poll each second instead, and reads still catch up first. Allow XREAD for the gateway's user",
          { url: options.where, err: (error as Error).message },
        );
      }
      await sleep(FOLLOW_RETRY_MS);
    }
  }
}
