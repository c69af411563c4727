import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readRegularFileSync } from "../regular-file.js";

/** How long a delivery id is remembered. */
const WINDOW_MS = 24 * 60 * 60 * 1000;

interface Delivery {
  readonly job: string;
  /** Milliseconds since the epoch. */
  readonly seen: number;
}

/**
 * The delivery ids seen in the last 24 hours, per hook (beyond upstream: `deduplicate-by`), so a redelivered or
 * replayed webhook runs nothing again. Each is a file `<dir>/<sha256 of hook and id>` holding the first job's id,
 * so they survive a restart, and no request text ever names a path. `claim` is synchronous: of two copies of a
 * delivery arriving at once, exactly one gets to run.
 */
export class DeliveryLog {
  readonly #dir: string;
  readonly #now: () => Date;
  readonly #seen = new Map<string, Delivery>();

  /** @throws {Error} when the directory cannot be created or read */
  constructor(dir: string, options: { now: () => Date }) {
    this.#dir = dir;
    this.#now = options.now;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const now = this.#now().getTime();
    const recent: [string, Delivery][] = [];
    for (const name of readdirSync(dir)) {
      if (!/^[0-9a-f]{64}$/.test(name)) continue;
      try {
        // A file that is not regular (a FIFO) is refused without blocking, and removed as a spoilt one is.
        const delivery = JSON.parse(readRegularFileSync(join(dir, name)).toString("utf8")) as Delivery;
        if (now - delivery.seen < WINDOW_MS) recent.push([name, delivery]);
        else rmSync(join(dir, name), { force: true });
      } catch {
        rmSync(join(dir, name), { force: true });
      }
    }
    // Oldest first, as they arrived: the sweep in `claim` stops at the first recent one.
    for (const [name, delivery] of recent.sort(([, a], [, b]) => a.seen - b.seen))
      this.#seen.set(name, delivery);
  }

  /**
   * The job that first ran this delivery of `hook`, when it was seen in the last 24 hours; otherwise records it as
   * `job`'s (once `job()` makes it) and returns undefined.
   */
  claim(hook: string, deliveryId: string, job: () => string): string | undefined {
    const key = deliveryKey(hook, deliveryId);
    const now = this.#now().getTime();
    const seen = this.#seen.get(key);
    if (seen !== undefined && now - seen.seen < WINDOW_MS) return seen.job;
    this.#forgetOld(now);
    const delivery: Delivery = { job: job(), seen: now };
    this.#seen.set(key, delivery);
    writeFileSync(join(this.#dir, key), JSON.stringify(delivery), { mode: 0o600 });
    return undefined;
  }

  /** Drops a claim whose run was refused (429), so a retry of the delivery runs. */
  forget(hook: string, deliveryId: string): void {
    const key = deliveryKey(hook, deliveryId);
    this.#seen.delete(key);
    rmSync(join(this.#dir, key), { force: true });
  }

  #forgetOld(now: number): void {
    for (const [key, delivery] of this.#seen) {
      // Insertion order is arrival order: the first recent one ends the sweep.
      if (now - delivery.seen < WINDOW_MS) break;
      this.#seen.delete(key);
      rmSync(join(this.#dir, key), { force: true });
    }
  }
}

/** A delivery's file name: request text never becomes a path. */
function deliveryKey(hook: string, deliveryId: string): string {
  return createHash("sha256").update(hook).update("\0").update(deliveryId).digest("hex");
}
