/**
 * golang.org/x/time/rate's `Limiter` as exporter-toolkit uses it (`rate.NewLimiter(rate.Every(interval), burst)`,
 * then `Allow()`): a bucket of `burst` tokens, full at the start, refilled by one token per `intervalMs`; each
 * request takes one or is refused.
 */
export class RateLimiter {
  private tokens: number;
  private last: number;
  private readonly options: { burst: number; intervalMs: number; now: () => number };

  constructor(options: { burst: number; intervalMs: number; now: () => number }) {
    this.options = options;
    this.tokens = options.burst;
    this.last = options.now();
  }

  /** Takes a token when one is there. */
  allow(): boolean {
    const now = this.options.now();
    const { burst, intervalMs } = this.options;
    this.tokens = Math.min(burst, this.tokens + (now - this.last) / intervalMs);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
