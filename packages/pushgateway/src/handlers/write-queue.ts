/** How long one slice of queued writes may run before the event loop polls its sockets again (bench/pushgateway). */
const SLICE_MS = 2;

/**
 * The gateway's writes (push, delete, wipe) in arrival order, started in slices of the event loop.
 *
 * Why: node reads every socket that became readable in one poll and, without this, ran each push whole (parse,
 * consistency check, store update) in its socket's callback, so a scrape read in the same poll waited behind every
 * push read before it, and one read just after behind all of them (bench/pushgateway auth.mjs: 20-34 pushes, up to
 * 63 ms). Queued, a push costs its poll only the reading of its request: a scrape is answered in the poll that reads
 * it, and the queued writes run after the poll, about {@link SLICE_MS} at a time, the loop polling again between
 * slices. Upstream's handlers likewise hand each write to the storage loop (storage/diskmetricstore.go `loop`) while
 * scrapes are served on other goroutines.
 *
 * Each job runs synchronously up to its store call, so the store sees writes in the order they were queued (the
 * store contract, store/metric-store.ts); a job that then waits (a shared store's round trip) does not hold up the
 * next one. `run` resolves with the job's own answer, so a push is still answered only once its write is applied.
 */
export class WriteQueue {
  readonly #jobs: (() => void)[] = [];
  #next = 0;
  #scheduled = false;
  readonly #sliceMs: number;
  readonly #clock: () => number;
  readonly #defer: (drain: () => void) => void;

  constructor(options: { sliceMs?: number; clock?: () => number; defer?: (drain: () => void) => void } = {}) {
    this.#sliceMs = options.sliceMs ?? SLICE_MS;
    this.#clock = options.clock ?? (() => performance.now());
    // setImmediate: the slice runs right after the poll that queued it, before the loop's next wait for sockets.
    this.#defer = options.defer ?? ((drain) => setImmediate(drain));
  }

  /** Queues `job` behind the writes queued before it; the promise settles as the job's own answer does. */
  run<T>(job: () => T | Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#jobs.push(() => {
        try {
          resolve(job());
        } catch (error) {
          reject(error);
        }
      });
      if (!this.#scheduled) {
        this.#scheduled = true;
        this.#defer(this.#drain);
      }
    });
  }

  /** Writes queued and not yet started. */
  get pending(): number {
    return this.#jobs.length - this.#next;
  }

  readonly #drain = (): void => {
    this.#scheduled = false;
    const started = this.#clock();
    do {
      const job = this.#jobs[this.#next];
      this.#next++;
      job?.();
    } while (this.#next < this.#jobs.length && this.#clock() - started < this.#sliceMs);
    this.#jobs.splice(0, this.#next);
    this.#next = 0;
    if (this.#jobs.length > 0) {
      this.#scheduled = true;
      this.#defer(this.#drain);
    }
  };
}
