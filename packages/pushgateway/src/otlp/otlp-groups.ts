import { formatGoFloat } from "../exposition/go-float.js";
import type { Metric, MetricFamily, MetricType } from "../exposition/metric-family.js";
import { encodeNative } from "../exposition/native-histogram.js";
import type { GroupingLabels } from "../grouping-key.js";
import type {
  AnyValue,
  ExponentialHistogramDataPoint,
  ExportRequest,
  HistogramDataPoint,
  KeyValue,
  NumberDataPoint,
  OtlpMetric,
  ResourceMetrics,
  SummaryDataPoint,
} from "./otlp-codec.js";
import { type OtelKind, prometheusLabelName, prometheusMetricName } from "./prometheus-name.js";

/** What one resource of an OTLP export does to its group. */
export interface OtlpGroup {
  readonly labels: GroupingLabels;
  /** Gauges, cumulative sums and histograms, summaries, `target_info`: replace their families (as a POST). */
  readonly replace: MetricFamily[];
  /** Delta sums and histograms: added into the group (as an aggregating push, gauges summed). */
  readonly add: MetricFamily[];
}

/** An export split by group, with the data points that could not be translated and why. */
export interface OtlpTranslation {
  readonly groups: OtlpGroup[];
  readonly rejected: number;
  readonly errors: string[];
}

const NO_RECORDED_VALUE = 1;
// Prometheus native histograms take schemas -4 to 8 (model/histogram); finer OTLP scales are coarsened.
const MAX_SCHEMA = 8;
const MIN_SCHEMA = -4;

/**
 * Translates an `ExportMetricsServiceRequest` as the OpenTelemetry "Prometheus and OpenMetrics Compatibility"
 * specification does, into pushes: each resource is a group, `job` from `service.name` (`service.namespace/`
 * before it when set), `instance` from `service.instance.id`; other resource attributes go to a `target_info` gauge;
 * the scope's name and version become `otel_scope_name`/`otel_scope_version` labels. Monotonic sums are counters,
 * other sums and gauges gauges; explicit-bucket histograms classic histograms, exponential ones native histograms;
 * summaries summaries. Delta points are added into the group, cumulative ones replace.
 */
export function translateExport(request: ExportRequest): OtlpTranslation {
  const groups: OtlpGroup[] = [];
  const errors: string[] = [];
  let rejected = 0;
  for (const resource of request.resourceMetrics ?? []) {
    const result = translateResource(resource);
    rejected += result.rejected;
    errors.push(...result.errors);
    if (result.group !== undefined) groups.push(result.group);
  }
  return { groups, rejected, errors };
}

function translateResource(resource: ResourceMetrics): {
  group?: OtlpGroup;
  rejected: number;
  errors: string[];
} {
  const attributes = new Map(
    (resource.resource?.attributes ?? []).map((kv) => [kv.key ?? "", attributeText(kv.value)]),
  );
  const points = countPoints(resource);
  const service = attributes.get("service.name");
  if (service === undefined || service === "")
    return {
      rejected: points,
      errors: [`a resource without service.name: its ${points} data points have no job to be grouped under`],
    };
  const namespace = attributes.get("service.namespace");
  const labels: Record<string, string> = { job: namespace ? `${namespace}/${service}` : service };
  const instance = attributes.get("service.instance.id");
  if (instance !== undefined) labels.instance = instance;
  const replace = new Map<string, MetricFamily>();
  const add = new Map<string, MetricFamily>();
  const errors: string[] = [];
  let rejected = 0;
  for (const scope of resource.scopeMetrics ?? []) {
    const scopeLabels: [string, string][] = [];
    if (scope.scope?.name) scopeLabels.push(["otel_scope_name", scope.scope.name]);
    if (scope.scope?.version) scopeLabels.push(["otel_scope_version", scope.scope.version]);
    for (const metric of scope.metrics ?? []) {
      const out = translateMetric(metric, scopeLabels);
      if ("error" in out) {
        rejected += out.points;
        errors.push(out.error);
        continue;
      }
      rejected += out.rejected;
      errors.push(...out.errors);
      const into = out.delta ? add : replace;
      const held = into.get(out.family.name) ?? (out.delta ? replace : add).get(out.family.name);
      if (held !== undefined && held.type !== out.family.type) {
        rejected += out.family.metrics.length;
        errors.push(
          `${metric.name}: ${out.family.name} is already a ${held.type} in this export, not a ${out.family.type}`,
        );
        continue;
      }
      const same = into.get(out.family.name);
      if (same === undefined) into.set(out.family.name, out.family);
      else same.metrics.push(...out.family.metrics);
    }
  }
  const info = targetInfo(attributes);
  if (info !== undefined) replace.set(info.name, info);
  return {
    group: { labels, replace: [...replace.values()], add: [...add.values()] },
    rejected,
    errors,
  };
}

/** Resource attributes other than those that make the grouping key (specification: "Resource Attributes"). */
function targetInfo(attributes: ReadonlyMap<string, string>): MetricFamily | undefined {
  const labels = labelPairs(
    [...attributes].filter(
      ([k]) => !["service.name", "service.namespace", "service.instance.id"].includes(k),
    ),
  );
  if (labels.length === 0) return undefined;
  return { name: "target_info", help: "Target metadata", type: "gauge", metrics: [{ labels, value: 1 }] };
}

type Translated =
  | { family: MetricFamily; delta: boolean; rejected: number; errors: string[] }
  | { error: string; points: number };

function translateMetric(metric: OtlpMetric, scopeLabels: readonly [string, string][]): Translated {
  const unit = metric.unit ?? "";
  const source = metric.name ?? "";
  const data =
    metric.gauge ?? metric.sum ?? metric.histogram ?? metric.exponentialHistogram ?? metric.summary;
  const points = data?.dataPoints?.length ?? 0;
  let type: MetricType;
  let kind: OtelKind;
  let temporality: string | undefined;
  if (metric.gauge !== undefined) [type, kind] = ["gauge", "gauge"];
  else if (metric.sum !== undefined) {
    [type, kind] = metric.sum.isMonotonic ? ["counter", "counter"] : ["gauge", "gauge"];
    temporality = metric.sum.aggregationTemporality;
  } else if (metric.histogram !== undefined) {
    [type, kind, temporality] = ["histogram", "other", metric.histogram.aggregationTemporality];
  } else if (metric.exponentialHistogram !== undefined) {
    [type, kind, temporality] = ["histogram", "other", metric.exponentialHistogram.aggregationTemporality];
  } else if (metric.summary !== undefined) [type, kind] = ["summary", "other"];
  else return { error: `${source}: a metric without data (no gauge, sum, histogram or summary)`, points: 0 };
  const name = prometheusMetricName(source, { unit, kind });
  if (name === "")
    return { error: `"${source}": the name has no letter or digit to make a Prometheus name of`, points };
  if (temporality !== undefined && !temporality.endsWith("DELTA") && !temporality.endsWith("CUMULATIVE"))
    return { error: `${source}: aggregation temporality is unspecified`, points };
  const errors: string[] = [];
  let rejected = 0;
  const metrics: Metric[] = [];
  for (const point of data?.dataPoints ?? []) {
    if (((point.flags ?? 0) & NO_RECORDED_VALUE) !== 0) continue;
    const labels = [
      ...labelPairs((point.attributes ?? []).map((kv) => [kv.key ?? "", attributeText(kv.value)])),
      ...scopeLabels,
    ];
    const value = pointValue(metric, point);
    if (typeof value === "string") {
      rejected++;
      errors.push(`${source}: ${value}`);
      continue;
    }
    metrics.push({ labels, ...value });
  }
  return {
    family: { name, help: metric.description || undefined, type, metrics },
    delta: temporality?.endsWith("DELTA") === true,
    rejected,
    errors,
  };
}

/** The value fields of one point, or why it cannot be translated. */
function pointValue(metric: OtlpMetric, point: object): Omit<Metric, "labels"> | string {
  if (metric.gauge !== undefined || metric.sum !== undefined) {
    const p = point as NumberDataPoint;
    return { value: p.asDouble ?? (p.asInt === undefined ? 0 : Number(p.asInt)) };
  }
  if (metric.histogram !== undefined) return classicHistogram(point as HistogramDataPoint);
  if (metric.exponentialHistogram !== undefined)
    return nativeHistogram(point as ExponentialHistogramDataPoint);
  const p = point as SummaryDataPoint;
  return {
    quantiles: (p.quantileValues ?? []).map((q) => [q.quantile ?? 0, q.value ?? 0]),
    count: Number(p.count ?? 0),
    sum: p.sum ?? 0,
  };
}

function classicHistogram(p: HistogramDataPoint): Omit<Metric, "labels"> | string {
  const bounds = p.explicitBounds ?? [];
  const counts = p.bucketCounts ?? [];
  const count = Number(p.count ?? 0);
  // Prometheus' receiver reads a count per bound and takes +Inf from `count` (prometheusremotewrite histograms.go);
  // fewer counts than bounds leave buckets undefined.
  if (counts.length > 0 && counts.length < bounds.length)
    return `a histogram point has ${counts.length} bucket counts for ${bounds.length} bounds (needs one more count than bounds)`;
  let cumulative = 0;
  const buckets: [number, number][] = bounds.map((le, i) => {
    cumulative += Number(counts[i] ?? 0);
    return [le, cumulative];
  });
  buckets.push([Number.POSITIVE_INFINITY, count]);
  return { buckets, count, sum: p.sum ?? 0 };
}

/**
 * An exponential histogram point as a native histogram: OTLP's bucket `i` covers (base^i, base^(i+1)], Prometheus'
 * (base^(i-1), base^i], so indexes shift by one; scales above 8 are coarsened to 8 by merging buckets (index >> d).
 */
function nativeHistogram(p: ExponentialHistogramDataPoint): Omit<Metric, "labels"> | string {
  const scale = p.scale ?? 0;
  if (scale < MIN_SCHEMA)
    return `exponential histogram scale ${scale} is below ${MIN_SCHEMA}, the coarsest native histogram schema`;
  const shift = Math.max(0, scale - MAX_SCHEMA);
  const side = (buckets: ExponentialHistogramDataPoint["positive"]) => {
    const out = new Map<number, number>();
    const offset = buckets?.offset ?? 0;
    (buckets?.bucketCounts ?? []).forEach((c, i) => {
      const index = Math.floor((offset + i) / 2 ** shift) + 1;
      out.set(index, (out.get(index) ?? 0) + Number(c));
    });
    return out;
  };
  const count = Number(p.count ?? 0);
  const sum = p.sum ?? 0;
  const message = encodeNative({
    schema: scale - shift,
    zeroThreshold: p.zeroThreshold ?? 0,
    float: false,
    count,
    sum,
    zeroCount: Number(p.zeroCount ?? 0),
    positive: side(p.positive),
    negative: side(p.negative),
  });
  return { buckets: [], count, sum, protoValue: JSON.stringify(message) };
}

/** Attribute keys as label names; keys that collide after translation join their values with `;` (specification). */
function labelPairs(attributes: readonly [string, string][]): [string, string][] {
  const byName = new Map<string, string[]>();
  for (const [key, value] of [...attributes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const name = prometheusLabelName(key);
    if (name === "") continue;
    byName.set(name, [...(byName.get(name) ?? []), value]);
  }
  return [...byName].map(([k, vs]) => [k, vs.join(";")]);
}

/** An attribute value as a label value: strings as they are, numbers and booleans as text, the rest as JSON. */
function attributeText(value: AnyValue | undefined): string {
  if (value === undefined) return "";
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return String(value.boolValue);
  if (value.intValue !== undefined) return value.intValue;
  if (value.doubleValue !== undefined) return formatGoFloat(value.doubleValue);
  if (value.arrayValue !== undefined)
    return JSON.stringify((value.arrayValue.values ?? []).map(attributeText));
  if (value.kvlistValue !== undefined)
    return JSON.stringify(
      Object.fromEntries(
        (value.kvlistValue.values ?? []).map((kv: KeyValue) => [kv.key ?? "", attributeText(kv.value)]),
      ),
    );
  return value.bytesValue ?? "";
}

function countPoints(resource: ResourceMetrics): number {
  let n = 0;
  for (const scope of resource.scopeMetrics ?? []) {
    for (const m of scope.metrics ?? []) {
      const data = m.gauge ?? m.sum ?? m.histogram ?? m.exponentialHistogram ?? m.summary;
      n += data?.dataPoints?.length ?? 0;
    }
  }
  return n;
}
