import type { Metric, MetricFamily, MetricType } from "./metric-family.js";
import { loadCodec } from "./protobuf-codec.js";

/** client_model's `MetricType` names. */
export const PROTO_TYPES: Readonly<Record<MetricType, string>> = {
  counter: "COUNTER",
  gauge: "GAUGE",
  summary: "SUMMARY",
  untyped: "UNTYPED",
  histogram: "HISTOGRAM",
};

/**
 * Varint-delimited `MetricFamily` messages, one per family in the given order, as client_golang's promhttp writes
 * them for `encoding=delimited`: only the fields the family has are set (no HELP field without a HELP, the type
 * always, also COUNTER's 0), fields in number order as Go marshals them.
 */
export async function writeDelimitedProtobuf(families: readonly MetricFamily[]): Promise<Buffer> {
  const { family: familyType, writer: Writer } = await loadCodec();
  const writer = Writer.create();
  // Go's text parser reads `NaN` as math.NaN(), 0x7FF8000000000001; JavaScript has only 0x7FF8000000000000.
  const double = writer.double;
  writer.double = function goDouble(value: number) {
    return Number.isNaN(value) ? this.fixed32(1).fixed32(0x7ff80000) : double.call(this, value);
  };
  for (const f of families) familyType.encodeDelimited(familyType.fromObject(protoFamily(f)), writer);
  const bytes = writer.finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** A family as protobufjs's plain object (camelCase fields), with only the fields Go would set. */
function protoFamily(f: MetricFamily): Record<string, unknown> {
  return {
    name: f.name,
    ...(f.help === undefined ? {} : { help: f.help }),
    type: PROTO_TYPES[f.type],
    metric: f.metrics.map((m) => protoMetric(f.type, m)),
  };
}

function protoMetric(type: MetricType, m: Metric): Record<string, unknown> {
  const out: Record<string, unknown> = { label: m.labels.map(([name, value]) => ({ name, value })) };
  if (m.protoValue !== undefined && (type === "counter" || type === "summary" || type === "histogram")) {
    // What a protobuf push sent, unchanged (upstream stores and serves the pushed MetricFamily).
    out[type] = JSON.parse(m.protoValue);
    if (m.timestampMs !== undefined) out.timestampMs = m.timestampMs;
    return out;
  }
  switch (type) {
    case "summary":
      out.summary = {
        sampleCount: goUint64(m.count ?? 0),
        sampleSum: m.sum ?? 0,
        quantile: (m.quantiles ?? []).map(([quantile, value]) => ({ quantile, value })),
      };
      break;
    case "histogram":
      out.histogram = {
        sampleCount: goUint64(m.count ?? 0),
        sampleSum: m.sum ?? 0,
        bucket: (m.buckets ?? []).map(([upperBound, c]) => ({ cumulativeCount: goUint64(c), upperBound })),
      };
      break;
    default:
      out[type] = { value: m.value ?? 0 };
  }
  if (m.timestampMs !== undefined) out.timestampMs = m.timestampMs;
  return out;
}

/** Go's text parser stores counts as `uint64(value)`: the fraction dropped; what cannot convert is 0 here. */
export function goUint64(v: number): number {
  return Number.isFinite(v) && v >= 0 ? Math.trunc(v) : 0;
}

/**
 * A count's decimal digits as Go prints a uint64 (`fmt.Sprint`): exact, where `String` writes 2^63 as
 * 9223372036854776000. A float at 2^64 (a small negative count wrapped, parse-text.ts) is the largest uint64.
 */
export function goUint64String(v: number): string {
  const n = goUint64(v);
  return n >= 2 ** 64 ? "18446744073709551615" : BigInt(n).toString();
}

/**
 * Go's `uint64(v)` on amd64, where Debian's and upstream's builds run, as the parser stores counts
 * (`proto.Uint64(uint64(value))`): the fraction dropped, a negative value wrapped (-1 is 2^64-1), NaN, infinities and
 * values past the range 2^63. As a float: the text format writes these counts as floats again.
 */
export function goUint64Cast(v: number): number {
  if (Number.isNaN(v) || v >= 2 ** 64 || v < -(2 ** 63)) return 2 ** 63;
  const t = Math.trunc(v);
  return t < 0 ? 2 ** 64 + t : t;
}
