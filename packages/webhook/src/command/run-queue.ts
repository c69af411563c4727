/** A hook's limits: `maximum-concurrent-executions` and `queue` (both beyond upstream). */
export interface RunLimits {
  readonly id: string;
  readonly maximumConcurrentExecutions: number;
  readonly queue: number;
}

/** Whether a run may start: now, once a slot frees (`turn` resolves true; false if it was cancelled), or not. */
export type Admission =
  | { readonly kind: "now" }
  | {
      readonly kind: "queued";
      readonly turn: Promise<boolean>;
      /** Leaves the queue; false when the run had already been given its turn. */
      readonly cancel: () => boolean;
    }
  | { readonly kind: "full"; readonly retryAfter: number };

interface Waiter {
  readonly start: (go: boolean) => void;
}

/**
 * Runs of each hook in progress and waiting (beyond upstream; the limit is what PRs #165/#167 for
 * adnanh/webhook#148 proposed, the queue what #148 asks for). A hook with `maximum-concurrent-executions` runs that
 * many at once; with `queue: N` up to N more wait and start in arrival order as runs end; past that, or without a
 * queue, the run is refused (429). A hook without a limit always runs at once, as upstream.
 */
export class RunQueue {
  readonly #running: Map<string, number>;
  readonly #waiting = new Map<string, Waiter[]>();
  /** Hooks admitted with a queue: their runs are waited for at shutdown. */
  readonly #queued = new Set<string>();
  #idleWaiters: { all: boolean; resolve: () => void }[] = [];
  /** Each hook's recent run time in seconds (a moving average), for `Retry-After`. */
  readonly #seconds = new Map<string, number>();

  /** `running` is shared with whoever else counts runs in progress. */
  constructor(running: Map<string, number> = new Map()) {
    this.#running = running;
  }

  /** Takes a slot, or a place in the queue. A `now` or started `queued` run must be ended with `release`. */
  admit(hook: RunLimits): Admission {
    const max = hook.maximumConcurrentExecutions;
    const running = this.#running.get(hook.id) ?? 0;
    if (hook.queue > 0) this.#queued.add(hook.id);
    if (max <= 0 || running < max) {
      this.#running.set(hook.id, running + 1);
      return { kind: "now" };
    }
    const waiting = this.#waiting.get(hook.id) ?? [];
    if (waiting.length >= hook.queue)
      return { kind: "full", retryAfter: this.#retryAfter(hook, waiting.length) };
    let waiter: Waiter | undefined;
    const turn = new Promise<boolean>((resolve) => {
      waiter = { start: resolve };
    });
    waiting.push(waiter as Waiter);
    this.#waiting.set(hook.id, waiting);
    const cancel = () => {
      const at = waiting.indexOf(waiter as Waiter);
      if (at < 0) return false;
      waiting.splice(at, 1);
      (waiter as Waiter).start(false);
      return true;
    };
    return { kind: "queued", turn, cancel };
  }

  /** A run of `id` ended after `seconds`: its slot goes to the first waiting run, if any. */
  release(id: string, seconds: number): void {
    const average = this.#seconds.get(id);
    this.#seconds.set(id, average === undefined ? seconds : average * 0.7 + seconds * 0.3);
    const next = this.#waiting.get(id)?.shift();
    // The slot passes on as it is: the running count stays.
    if (next !== undefined) next.start(true);
    else this.#running.set(id, Math.max(0, (this.#running.get(id) ?? 1) - 1));
    this.#idleWaiters = this.#idleWaiters.filter((w) => {
      if (!this.#isIdle(w.all)) return true;
      w.resolve();
      return false;
    });
  }

  /**
   * Resolves once no run is in progress: of any hook (`all`), or of the hooks with a queue (whose runs a shutdown
   * lets finish; others are left running as upstream leaves them).
   */
  idle(options: { all: boolean }): Promise<void> {
    if (this.#isIdle(options.all)) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push({ all: options.all, resolve }));
  }

  #isIdle(all: boolean): boolean {
    for (const [id, n] of this.#running) if (n > 0 && (all || this.#queued.has(id))) return false;
    return true;
  }

  /** Shutdown: every waiting run is cancelled (its `turn` resolves false). Returns how many there were. */
  cancelWaiting(): number {
    let n = 0;
    for (const waiting of this.#waiting.values()) {
      for (const waiter of waiting.splice(0)) {
        waiter.start(false);
        n++;
      }
    }
    return n;
  }

  /** Seconds until a slot is likely free: the runs ahead times the hook's recent run time, at least 1. */
  #retryAfter(hook: RunLimits, waiting: number): number {
    const each = this.#seconds.get(hook.id) ?? 1;
    const ahead = waiting + 1;
    return Math.max(1, Math.ceil((each * ahead) / Math.max(1, hook.maximumConcurrentExecutions)));
  }
}
