/** Runs at most `limit` calls at once; the rest wait in order, `background` ones behind all others. */
export interface RequestLimiter {
  run<T>(fn: () => Promise<T>, options?: { readonly background?: boolean }): Promise<T>;
}

/**
 * Creates a limiter. Two queues, because not every request is on the critical path: a request nothing waits for
 * yet (the privacy lookup `lock` starts beside each resolution chain) yields to the chains' next steps, so a full
 * bound does not cost the chains an extra wave (bench/toolmgr/README.md, "lock": the token scenario).
 */
export function createRequestLimiter(limit: number): RequestLimiter {
  let active = 0;
  const normal: (() => void)[] = [];
  const background: (() => void)[] = [];
  return {
    async run(fn, options = {}) {
      if (active >= limit) {
        await new Promise<void>((resolve) => (options.background ? background : normal).push(resolve));
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
