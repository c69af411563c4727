/** Runs at most `limit` calls at once; the rest wait in order, `background` ones behind all others. */
export interface RequestLimiter {
  run<T>(fn: () => Promise<T>, options?: { readonly background?: boolean }): Promise<T>;
}

/**
 * Creates a limiter. Two queues, because not every request is on the critical path: a request nothing waits for
 * yet (the privacy lookup `lock` starts beside each resolution chain) yields to the chains' requests. A background
 * request never takes a free slot directly: it is admitted on the next turn of the event loop, after the requests
 * issued in the same turn (every tool's first chain request) had the slots, and only while no other request waits.
 * Without that, the first fill of the bound was half privacy lookups, and the chains of the tools left over took a
 * third wave (bench/toolmgr/README.md, "lock": the token scenario).
 */
export function createRequestLimiter(limit: number): RequestLimiter {
  let active = 0;
  const normal: (() => void)[] = [];
  const background: (() => void)[] = [];
  let draining = false;
  const drain = () => {
    draining = false;
    while (active < limit && normal.length === 0 && background.length > 0) {
      active++;
      background.shift()?.();
    }
  };
  return {
    async run(fn, options = {}) {
      if (options.background) {
        await new Promise<void>((resolve) => {
          background.push(resolve);
          if (!draining) {
            draining = true;
            setImmediate(drain);
          }
        });
      } else if (active >= limit) {
        await new Promise<void>((resolve) => normal.push(resolve));
      } else active++;
      try {
        return await fn();
      } finally {
        const next = normal.shift() ?? background.shift();
        if (next) next();
        else active--;
      }
    },
  };
}
