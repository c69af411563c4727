import { AggregationError } from "../errors.js";
import { formatGoFloat } from "../exposition/go-float.js";
import type { Metric, MetricFamily } from "../exposition/metric-family.js";
import { isNative, type NativeHistogram } from "../exposition/native-buckets.js";
import { decodeNative, encodeNative, type NativeCounts } from "../exposition/native-histogram.js";
import { seriesKey } from "../exposition/rendered-family.js";

/** How gauges (and untyped samples) combine: the pushed value replaces (default), or adds (`--aggregate.gauges=sum`). */
export type GaugeMode = "latest" | "sum";

/**
 * A pushed family added into the group's family of that name (both with grouping labels applied, labels sorted), as
 * aggregating gateways do (zapier/prom-aggregation-gateway, weaveworks/prom-aggregation-gateway): series matched by
 * their labels; counters, histogram buckets, `_count` and `_sum` summed; gauges per `gauges`; a summary's quantiles
 * are the pushed ones (quantiles cannot be added). Series the push does not carry are kept, new ones appended.
 * Exemplars and created timestamps of a summed series are dropped: they describe one push, not the sum.
 *
 * @throws {AggregationError} when the types differ or a histogram's bucket layout does not match the held one
 */
export function addFamily(
  held: MetricFamily | undefined,
  pushed: MetricFamily,
  options: { gauges: GaugeMode },
): MetricFamily {
  if (held === undefined) return pushed;
  if (held.type !== pushed.type)
    throw new AggregationError(
      `cannot add ${pushed.name}: the group holds it as ${article(held.type)}, the push has it as ${article(pushed.type)}; push it to a new group or DELETE the aggregated group first`,
    );
  const metrics = [...held.metrics];
  const at = new Map(metrics.map((m, i) => [seriesKey(m), i]));
  for (const m of pushed.metrics) {
    const key = seriesKey(m);
    const i = at.get(key);
    if (i === undefined) {
      at.set(key, metrics.length);
      metrics.push(m);
      continue;
    }
    metrics[i] = addSeries(metrics[i] as Metric, m, { family: pushed, gauges: options.gauges });
  }
  return { name: held.name, help: pushed.help ?? held.help, type: held.type, metrics };
}

function addSeries(
  held: Metric,
  pushed: Metric,
  options: { family: MetricFamily; gauges: GaugeMode },
): Metric {
  const { family } = options;
  const labels = pushed.labels;
  switch (family.type) {
    case "counter":
      return { labels, value: (held.value ?? 0) + (pushed.value ?? 0) };
    case "summary":
      return {
        labels,
        quantiles: pushed.quantiles ?? [],
        count: (held.count ?? 0) + (pushed.count ?? 0),
        sum: (held.sum ?? 0) + (pushed.sum ?? 0),
      };
    case "histogram":
      return addHistogram(held, pushed, family.name);
    default:
      return {
        labels,
        value: options.gauges === "sum" ? (held.value ?? 0) + (pushed.value ?? 0) : (pushed.value ?? 0),
      };
  }
}

function addHistogram(held: Metric, pushed: Metric, name: string): Metric {
  const heldNative = nativeOf(held);
  const pushedNative = nativeOf(pushed);
  const series = `${name}{${pushed.labels.map(([k, v]) => `${k}="${v}"`).join(",")}}`;
  if ((heldNative === undefined) !== (pushedNative === undefined))
    throw new AggregationError(
      `cannot add ${series}: the group holds a ${heldNative ? "native" : "classic"} histogram, the push a ${pushedNative ? "native" : "classic"} one`,
    );
  const heldBuckets = withInf(held);
  const pushedBuckets = withInf(pushed);
  const classicLayout = (bs: [number, number][]) => bs.map(([le]) => formatGoFloat(le)).join(",");
  // A native histogram's text form is its +Inf bucket alone: only classic buckets are compared.
  if (classicLayout(heldBuckets) !== classicLayout(pushedBuckets))
    throw new AggregationError(
      `cannot add ${series}: bucket layout differs (group holds le=${classicLayout(heldBuckets)}, push has le=${classicLayout(pushedBuckets)})`,
    );
  const buckets = heldBuckets.map(([le, c], i) => [le, c + (pushedBuckets[i]?.[1] ?? 0)] as [number, number]);
  const count = (held.count ?? 0) + (pushed.count ?? 0);
  const sum = (held.sum ?? 0) + (pushed.sum ?? 0);
  // A push without the +Inf bucket (client_golang's protobuf) is stored without it, as a plain push of it is: the
  // text form adds it, a protobuf scrape serves the buckets as sent (rendered-family.ts).
  const pushedInf = (pushed.buckets ?? []).some(([le]) => le === Number.POSITIVE_INFINITY);
  const out: Metric = {
    labels: pushed.labels,
    buckets: pushedInf ? buckets : buckets.filter(([le]) => le !== Number.POSITIVE_INFINITY),
    count,
    sum,
  };
  if (heldNative === undefined || pushedNative === undefined) return out;
  const a = heldNative.counts;
  const b = pushedNative.counts;
  if (a.schema !== b.schema || a.zeroThreshold !== b.zeroThreshold)
    throw new AggregationError(
      `cannot add ${series}: native bucket layout differs (group holds schema ${a.schema}, zero threshold ${formatGoFloat(a.zeroThreshold)}; push has schema ${b.schema}, zero threshold ${formatGoFloat(b.zeroThreshold)})`,
    );
  const added: NativeCounts = {
    schema: a.schema,
    zeroThreshold: a.zeroThreshold,
    float: a.float || b.float,
    count: a.count + b.count,
    sum: a.sum + b.sum,
    zeroCount: a.zeroCount + b.zeroCount,
    positive: addBuckets(a.positive, b.positive),
    negative: addBuckets(a.negative, b.negative),
  };
  const message = encodeNative(added);
  // Classic buckets the push carried beside the native ones stay, summed, without the +Inf the text form adds.
  if (pushedNative.message.bucket !== undefined)
    message.bucket = buckets
      .filter(([le]) => le !== Number.POSITIVE_INFINITY)
      .map(([le, c]) => ({ cumulativeCount: String(c), upperBound: le }));
  return { ...out, count: added.count, protoValue: JSON.stringify(message) };
}

function addBuckets(a: ReadonlyMap<number, number>, b: ReadonlyMap<number, number>): Map<number, number> {
  const out = new Map(a);
  for (const [i, c] of b) out.set(i, (out.get(i) ?? 0) + c);
  return out;
}

/** The classic buckets with the `+Inf` one the text form adds (a protobuf push from client_golang has none). */
function withInf(m: Metric): [number, number][] {
  const buckets = [...(m.buckets ?? [])];
  if (!buckets.some(([le]) => le === Number.POSITIVE_INFINITY))
    buckets.push([Number.POSITIVE_INFINITY, m.count ?? 0]);
  return buckets;
}

function nativeOf(
  m: Metric,
): { counts: NativeCounts; message: NativeHistogram & { bucket?: unknown } } | undefined {
  if (m.protoValue === undefined) return undefined;
  const message = JSON.parse(m.protoValue) as NativeHistogram & { bucket?: unknown };
  if (!isNative(message) && message.schema === undefined) return undefined;
  return { counts: decodeNative(message), message };
}

function article(type: string): string {
  return `${/^[aeiou]/.test(type) ? "an" : "a"} ${type}`;
}
