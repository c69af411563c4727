import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/**
 * How a request to a hook ended, one label value each (`-metrics`, README "Beyond upstream"). `executed`,
 * `command_failed` and `timeout` are counted when the command has finished, also for hooks that answer before it does.
 */
export type HookOutcome =
  | "executed"
  | "rules_not_satisfied"
  | "rules_error"
  | "command_failed"
  | "timeout"
  | "not_found"
  | "method_not_allowed"
  | "too_many_requests"
  | "body_too_large"
  | "bad_request"
  | "duplicate"
  | "cancelled";

/**
 * The one `hook` label value for ids no hook has: a scanner trying ids must not grow the label set. The
 * parentheses keep it apart from real ids in practice (upstream ids are free text, but never need them).
 */
export const UNKNOWN_HOOK = "(unknown)";

/**
 * webhook's Prometheus metrics (`-metrics`, beyond upstream, adnanh/webhook#624), served at `GET /metrics` in the
 * text format: requests by hook and outcome, command durations, commands running, hooks loaded, reload failures,
 * and prom-client's process metrics.
 */
export class HookMetrics {
  readonly #registry = new Registry();
  readonly #requests: Counter<"hook" | "outcome">;
  readonly #duration: Histogram<"hook">;
  readonly #running: Gauge<"hook">;
  readonly #reloadFailures: Counter;

  /** `hooksLoaded` is read at each scrape. */
  constructor(options: { hooksLoaded: () => number }) {
    const registers = [this.#registry];
    collectDefaultMetrics({ register: this.#registry });
    this.#requests = new Counter({
      name: "webhook_hook_requests_total",
      help: "Requests to hooks, by hook id and how they ended.",
      labelNames: ["hook", "outcome"],
      registers,
    });
    this.#duration = new Histogram({
      name: "webhook_hook_command_duration_seconds",
      help: "How long hook commands ran, from start to exit.",
      labelNames: ["hook"],
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300],
      registers,
    });
    this.#running = new Gauge({
      name: "webhook_hook_commands_running",
      help: "Hook commands running now.",
      labelNames: ["hook"],
      registers,
    });
    new Gauge({
      name: "webhook_hooks_loaded",
      help: "Hooks served now.",
      registers,
      collect() {
        this.set(options.hooksLoaded());
      },
    });
    this.#reloadFailures = new Counter({
      name: "webhook_hooks_reload_failures_total",
      help: "Reloads of a hooks file that failed (the file's previous hooks stayed).",
      registers,
    });
  }

  /** Counts one request to `hook` (a served id, or {@link UNKNOWN_HOOK}). */
  request(hook: string, outcome: HookOutcome): void {
    this.#requests.inc({ hook, outcome });
  }

  /** A command of `hook` started; the returned function, called once it ended, records how long it ran. */
  commandStarted(hook: string): () => void {
    this.#running.inc({ hook });
    const end = this.#duration.startTimer({ hook });
    return () => {
      end();
      this.#running.dec({ hook });
    };
  }

  reloadFailed(): void {
    this.#reloadFailures.inc();
  }

  /** The scrape: content type and text. */
  async render(): Promise<{ contentType: string; body: string }> {
    const text = await this.#registry.metrics();
    const body = text
      .split("\n")
      .filter((line) => !LINTED_OUT.has(familyOf(line)))
      .join("\n");
    return { contentType: this.#registry.contentType, body };
  }
}

/**
 * prom-client's gauges that `promtool check metrics` refuses ("non-counter metrics should not have _total suffix");
 * each is the sum of a labelled family it also exports (`nodejs_active_handles{type}`, ...), so nothing is lost.
 */
const LINTED_OUT = new Set([
  "nodejs_active_handles_total",
  "nodejs_active_requests_total",
  "nodejs_active_resources_total",
]);

/** The metric family a line of the text format belongs to (its `# HELP`/`# TYPE` name, or the sample's name). */
function familyOf(line: string): string {
  const m = /^(?:# (?:HELP|TYPE) )?([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(line);
  return m?.[1] ?? "";
}
