import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type * as PromClient from "prom-client";
import type { MetricFamily } from "./exposition/metric-family.js";
import { parseText } from "./exposition/parse-text.js";
import { type Objective, WindowedSummary } from "./windowed-summary.js";

// prom-client's modules by path, not its index: the index also loads its push client (node:https, node:tls), its
// cluster aggregator (node:cluster) and every nodejs_* collector (a GC observer, an event-loop-delay histogram) that
// the scrape filters out anyway: 4.5 MiB of resident memory at start (bench/pushgateway/README.md). The package has
// no `exports` map, and these files have kept their paths and signatures since prom-client 11; a release that moved
// them fails at start, in every test that starts the gateway.
const requirePromClient = createRequire(import.meta.url);
const Registry = requirePromClient("prom-client/lib/registry.js") as typeof PromClient.Registry;
const Counter = requirePromClient("prom-client/lib/counter.js") as typeof PromClient.Counter;
const Gauge = requirePromClient("prom-client/lib/gauge.js") as typeof PromClient.Gauge;
/** client_golang's process collector as prom-client's default metrics render it, in `collectDefaultMetrics`' order. */
const PROCESS_COLLECTORS = [
  "processCpuTotal",
  "processStartTime",
  "osMemoryHeap",
  "processOpenFileDescriptors",
  "processMaxFileDescriptors",
].map(
  (name) =>
    requirePromClient(`prom-client/lib/metrics/${name}.js`) as (
      registry: PromClient.Registry,
      config: PromClient.DefaultMetricsCollectorConfiguration<PromClient.RegistryContentType>,
    ) => void,
);

/** The gateway's own metrics: build info, HTTP request counts by handler, and process metrics (prom-client). */
export interface OwnMetrics {
  /** Counts one handled request. */
  count(handler: string, method: string, status: number): void;
  /** Records one push's duration and body size, as upstream's two summaries. */
  observePush(method: string, seconds: number, bytes: number): void;
  /** The families as of now. */
  families(): Promise<MetricFamily[]>;
  /** The families of the last `families()` call, for the push consistency check (which is synchronous). */
  cached(): readonly MetricFamily[];
}

/** Creates the registry; the build's version and runtime go into `pushgateway_build_info`. */
export function createOwnMetrics(build: { version: string; goVersion: string }): OwnMetrics {
  const registry = new Registry();
  for (const collector of PROCESS_COLLECTORS) collector(registry, {});
  const info = new Gauge({
    name: "pushgateway_build_info",
    help: "A metric with a constant '1' value labeled by version, revision, branch, goversion from which pushgateway was built, and the goos and goarch for the build.",
    labelNames: ["branch", "goarch", "goos", "goversion", "revision", "version"],
    registers: [registry],
  });
  info.set(
    { branch: "", goarch: "", goos: "", goversion: build.goVersion, revision: "", version: build.version },
    1,
  );
  const requests = new Counter({
    name: "pushgateway_http_requests_total",
    help: "Total HTTP requests processed by the Pushgateway, excluding scrapes.",
    labelNames: ["code", "handler", "method"],
    registers: [registry],
  });
  // Upstream's push summaries: quantiles 0.1/0.5/0.9 over client_golang's 10-minute window (handler/push.go).
  const pushDuration = summaryFamily({
    name: "pushgateway_http_push_duration_seconds",
    help: "HTTP request duration for pushes to the Pushgateway.",
  });
  const pushSize = summaryFamily({
    name: "pushgateway_http_push_size_bytes",
    help: "HTTP request size for pushes to the Pushgateway.",
  });
  // prom-client lacks client_golang's process_virtual_memory_max_bytes: the soft address-space limit (procfs
  // /proc/self/limits, "unlimited" is 2^64-1 as Go's procfs reads it).
  new Gauge({
    name: "process_virtual_memory_max_bytes",
    help: "Maximum amount of virtual memory available in bytes.",
    registers: [registry],
    collect() {
      const limit = addressSpaceLimit();
      if (limit !== undefined) this.set(limit);
    },
  });
  let last: MetricFamily[] = [];
  return {
    count: (handler, method, status) =>
      requests.inc({ code: String(status), handler, method: method.toLowerCase() }),
    observePush(method, seconds, bytes) {
      pushDuration.observe(method.toLowerCase(), seconds);
      pushSize.observe(method.toLowerCase(), bytes);
    },
    async families() {
      // Only process_* of prom-client's defaults: the nodejs_* gauges end in _total, which scrapers' linters reject.
      // And only those are collected: the event-loop-lag gauge's collector waits a turn of the event loop
      // (setImmediate), which made every scrape wait behind all the pushes queued meanwhile (bench/pushgateway).
      const texts = await Promise.all(
        registry
          .getMetricsAsArray()
          .map((m) => m.name)
          .filter((name) => name.startsWith("process_") || name.startsWith("pushgateway_"))
          .map((name) => registry.getSingleMetricAsString(name)),
      );
      last = [...parseText(`${texts.join("\n")}\n`), pushDuration.family(), pushSize.family()];
      return last.map((f) => ({ ...f, metrics: [...f.metrics] }));
    },
    cached: () => last,
  };
}

/** client_golang's objectives for upstream's push summaries (handler/push.go). */
export const PUSH_OBJECTIVES: readonly Objective[] = [
  [0.1, 0.01],
  [0.5, 0.05],
  [0.9, 0.01],
];

/** A summary family with a `method` label, one {@link WindowedSummary} per method seen. */
function summaryFamily(meta: { name: string; help: string }): {
  observe(method: string, value: number): void;
  family(): MetricFamily;
} {
  const byMethod = new Map<string, WindowedSummary>();
  return {
    observe(method, value) {
      let summary = byMethod.get(method);
      if (summary === undefined) {
        summary = new WindowedSummary({ objectives: PUSH_OBJECTIVES });
        byMethod.set(method, summary);
      }
      summary.observe(value);
    },
    family: () => ({
      name: meta.name,
      help: meta.help,
      type: "summary",
      metrics: Array.from(byMethod, ([method, s]) => ({
        labels: [["method", method]],
        quantiles: s.quantiles(),
        sum: s.sum,
        count: s.count,
      })),
    }),
  };
}

function addressSpaceLimit(): number | undefined {
  try {
    const line = readFileSync("/proc/self/limits", "utf8")
      .split("\n")
      .find((l) => l.startsWith("Max address space"));
    const soft = line?.slice("Max address space".length).trim().split(/\s+/)[0];
    if (soft === undefined) return undefined;
    return soft === "unlimited" ? 2 ** 64 : Number(soft);
  } catch {
    return undefined;
  }
}
