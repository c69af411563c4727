import { goStruct } from "@local/go-compat/json";
import { formatGoFloat } from "../exposition/go-float.js";
import type { Metric, MetricType } from "../exposition/metric-family.js";
import {
  isFloatHistogram,
  isNative,
  type NativeHistogram,
  nativeBuckets,
} from "../exposition/native-buckets.js";
import { parseRenderedFamily } from "../exposition/rendered-family.js";
import { goUint64String } from "../exposition/write-protobuf.js";
import { isoTime } from "../iso-time.js";
import {
  FAILURE_TIME,
  FAILURE_TIME_HELP,
  type Group,
  PUSH_TIME,
  PUSH_TIME_HELP,
} from "../store/metric-store.js";
import { apiJson, errorResponse, type GatewayContext, type GatewayResponse } from "./responses.js";

/** `GET /api/v1/status`: build information, flags and start time (upstream api/v1/api.go `status`). */
export function apiStatus(ctx: GatewayContext): GatewayResponse {
  return apiJson(goStruct({ status: "success", data: ctx.status() }));
}

/** `GET /api/v1/metrics`: every group with its families (upstream api/v1/api.go `metrics`). */
export function apiMetrics(ctx: GatewayContext): GatewayResponse {
  return apiJson(goStruct({ status: "success", data: metricGroups(ctx) }));
}

/** `OPTIONS` on any path under `/api/v1/`: the CORS preflight (upstream api/v1/api.go `options`). */
export function apiOptions(): GatewayResponse {
  const { "Content-Type": _, ...cors } = apiJson(null).headers;
  return { status: 200, headers: cors, body: "" };
}

/** `PUT /api/v1/admin/wipe` (only with `--web.enable-admin-api`): deletes every group, 202 (upstream handler/wipe.go). */
export function wipe(ctx: GatewayContext): Promise<GatewayResponse> {
  // Behind the writes that came before (handlers/write-queue.ts); the store is called before the first await.
  return ctx.writes.run(async () => {
    try {
      await ctx.store.wipe();
    } catch (error) {
      return errorResponse(error);
    }
    return { status: 202, headers: {}, body: "" };
  });
}

/** The `/api/v1/metrics` shape of upstream (api/v1/api.go): values as Go-formatted strings, per-family timestamps. */
function metricGroups(ctx: GatewayContext): unknown[] {
  return ctx.store.groups().map((g) => groupEntry(g, { families: true }));
}

/**
 * One group as `/api/v1/metrics` shows it: `labels`, each family (with `families`), the two timestamp gauges and
 * `last_push_successful`. Without `families` it is the group as `/api/v1/groups` lists it (handlers/groups-api.ts).
 */
export function groupEntry(g: Group, options: { families: boolean }): Record<string, unknown> {
  // Keys are family names from the push: without a prototype, `__proto__` is a key like any other.
  const entry: Record<string, unknown> = Object.create(null);
  entry.labels = g.labels;
  for (const [name, rendered] of options.families ? g.families : []) {
    const f = parseRenderedFamily(rendered);
    entry[name] = goStruct({
      time_stamp: isoTime(g.pushedAt.get(name) ?? 0),
      type: f.type.toUpperCase(),
      // `help,omitempty`: an empty help is left out, as a missing one.
      ...(f.help === undefined || f.help === "" ? {} : { help: f.help }),
      metrics: f.metrics.map((m) => encodableMetric(f.type, m)),
    });
  }
  const labels = { ...g.labels, instance: g.labels.instance ?? "" };
  const lastChange = Math.max(g.pushTime, g.failureTime) * 1000;
  entry[PUSH_TIME] = goStruct({
    time_stamp: isoTime(g.pushTime * 1000 || lastChange),
    type: "GAUGE",
    help: PUSH_TIME_HELP,
    metrics: [{ labels, value: formatGoFloat(g.pushTime) }],
  });
  entry[FAILURE_TIME] = goStruct({
    time_stamp: isoTime(lastChange),
    type: "GAUGE",
    help: FAILURE_TIME_HELP,
    metrics: [{ labels, value: formatGoFloat(g.failureTime) }],
  });
  entry.last_push_successful = g.failureTime <= g.pushTime;
  return entry;
}

/**
 * One series as upstream's `makeEncodableMetrics` writes it (a Go map, so keys sorted): floats with `fmt.Sprint`
 * (Go's shortest `%v`), uint64 counts as integers, float counts (`*_float` fields) when set; a native histogram's
 * buckets as `[boundaries, lower, upper, count]` lists (histogram/prometheus_model.go `BucketsAsJson`).
 */
function encodableMetric(type: MetricType, m: Metric): Record<string, unknown> {
  const labels = Object.fromEntries(m.labels);
  switch (type) {
    case "summary":
      return {
        labels,
        quantiles: Object.fromEntries(
          (m.quantiles ?? []).map(([q, v]) => [formatGoFloat(q), formatGoFloat(v)]),
        ),
        count: goUint64Text(m.count ?? 0),
        sum: formatGoFloat(m.sum ?? 0),
      };
    case "histogram": {
      const pushed = m.protoValue === undefined ? undefined : (JSON.parse(m.protoValue) as PushedHistogram);
      const sum = formatGoFloat(m.sum ?? 0);
      if (pushed !== undefined && isNative(pushed)) {
        const float = isFloatHistogram(pushed);
        return {
          labels,
          sum,
          count: float ? formatGoFloat(Number(pushed.sampleCountFloat)) : (pushed.sampleCount ?? "0"),
          buckets: nativeBuckets(pushed).map((b) => [
            b.boundaries,
            formatGoFloat(b.lower),
            formatGoFloat(b.upper),
            float ? formatGoFloat(b.count) : String(b.count),
          ]),
        };
      }
      const floatCount = Number(pushed?.sampleCountFloat ?? 0);
      return {
        labels,
        sum,
        count:
          floatCount > 0 ? formatGoFloat(floatCount) : (pushed?.sampleCount ?? goUint64Text(m.count ?? 0)),
        // A pushed value message lists its buckets as sent, none when it has none (the stored lines add +Inf).
        buckets: pushed
          ? Object.fromEntries(
              (pushed.bucket ?? []).map((b) => {
                const c = Number(b.cumulativeCountFloat ?? 0);
                return [
                  formatGoFloat(Number(b.upperBound ?? 0)),
                  c > 0 ? formatGoFloat(c) : (b.cumulativeCount ?? "0"),
                ];
              }),
            )
          : Object.fromEntries((m.buckets ?? []).map(([le, c]) => [formatGoFloat(le), goUint64Text(c)])),
      };
    }
    default:
      return { labels, value: formatGoFloat(m.value ?? 0) };
  }
}

/** A pushed histogram message: native fields and classic buckets with their float counts. */
interface PushedHistogram extends NativeHistogram {
  bucket?: {
    cumulativeCount?: string;
    cumulativeCountFloat?: number | string;
    upperBound?: number | string;
  }[];
}

/** A count as Go's `fmt.Sprint(uint64)`: the text parser stored `uint64(value)`, so the fraction is dropped. */
function goUint64Text(v: number): string {
  return goUint64String(v);
}
