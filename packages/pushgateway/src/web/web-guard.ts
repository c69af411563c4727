import { goDuration } from "@local/go-compat/duration";
import type { Log } from "../logger.js";
import { type BasicAuth, createBasicAuth } from "./basic-auth.js";
import { LiveWebConfig } from "./live-web-config.js";
import { RateLimiter } from "./rate-limiter.js";

// exporter-toolkit's web.ListenAndServe at work: what the node listeners (http/) consult on each connection and
// request.

/** `--web.config.file` at work: the file, the basic-auth checker and the rate limiter built from it at start. */
export interface WebGuard {
  readonly config: LiveWebConfig;
  readonly auth: BasicAuth;
  readonly limiter: RateLimiter | undefined;
  /** Beyond upstream, `--web.auth-exempt-probes`: `/-/healthy` and `/-/ready` answer without credentials. */
  readonly exemptProbes: boolean;
  readonly log: Log;
}

/**
 * Reads `--web.config.file` and builds what serves it: basic auth, the rate limiter (fixed at start, as upstream).
 *
 * @throws {WebConfigError} when the file cannot be read or is not a valid web config
 */
export async function openWebGuard(
  file: string,
  options: { exemptProbes: boolean; log: Log; now: () => number },
): Promise<WebGuard> {
  const live = await LiveWebConfig.load(file);
  const { rateLimit } = live.initial;
  if (rateLimit.intervalMs !== 0)
    options.log("info", "Rate Limiter is enabled.", {
      burst: String(rateLimit.burst),
      // A time.Duration in upstream's log line (tls_config.go), so `1s`, not `1000ms`.
      interval: goDuration(rateLimit.intervalMs * 1e6),
    });
  return {
    config: live,
    auth: createBasicAuth(),
    limiter:
      rateLimit.intervalMs === 0
        ? undefined
        : new RateLimiter({ burst: rateLimit.burst, intervalMs: rateLimit.intervalMs, now: options.now }),
    exemptProbes: options.exemptProbes,
    log: options.log,
  };
}
