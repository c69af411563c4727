import { ParseError } from "../errors.js";
import type { Metric, MetricFamily, MetricType } from "./metric-family.js";
import { loadCodec } from "./protobuf-codec.js";

/** Whether a Content-Type announces varint-delimited `MetricFamily` protobuf (what Go clients push). */
export function isDelimitedProtobuf(contentType: string): boolean {
  const [media = "", ...params] = contentType.split(";").map((p) => p.trim());
  if (media.toLowerCase() !== "application/vnd.google.protobuf") return false;
  const map = new Map(params.map((p) => p.split("=").map((s) => s.trim()) as [string, string]));
  return map.get("proto") === "io.prometheus.client.MetricFamily" && map.get("encoding") === "delimited";
}

/**
 * Reads varint-length-delimited `MetricFamily` messages until the end of the body; a later family of the same name
 * replaces an earlier one (upstream).
 *
 * @throws {ParseError}
 */
export async function parseDelimitedProtobuf(body: Uint8Array): Promise<MetricFamily[]> {
  const { family: familyType, reader: Reader } = await loadCodec();
  const reader = Reader.create(body);
  const byName = new Map<string, MetricFamily>();
  try {
    while (reader.pos < reader.len) {
      const message = familyType.decodeDelimited(reader);
      // Longs as strings: uint64 counts and int64 timestamps beyond 2^53 survive the round trip.
      const f = familyType.toObject(message, {
        longs: String,
        enums: String,
        defaults: false,
      }) as ProtoFamily;
      const type = toType(f.type);
      byName.set(f.name ?? "", {
        name: f.name ?? "",
        help: f.help === undefined || f.help === "" ? undefined : f.help,
        type,
        metrics: (f.metric ?? []).map((m) => toMetric(m, type)),
      });
    }
  } catch (cause) {
    // Go's pbutil.ReadDelimited: a length or message cut short is io.ErrUnexpectedEOF; bytes that are not a
    // MetricFamily fail in proto.Unmarshal.
    const short = cause instanceof RangeError || /index out of range/.test((cause as Error).message);
    throw new ParseError(short ? "unexpected EOF" : "proto: cannot parse invalid wire-format data", {
      cause,
    });
  }
  for (const f of byName.values()) {
    if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(f.name)) throw new ParseError(`invalid metric name "${f.name}"`);
  }
  return [...byName.values()];
}

interface ProtoFamily {
  name?: string;
  help?: string;
  type?: string;
  metric?: ProtoMetric[];
}

/** A long as protobufjs writes it with `longs: String`. */
type Long = string;

interface ProtoMetric {
  label?: { name?: string; value?: string }[];
  gauge?: { value?: number };
  counter?: { value?: number };
  untyped?: { value?: number };
  summary?: { sampleCount?: Long; sampleSum?: number; quantile?: { quantile?: number; value?: number }[] };
  histogram?: {
    sampleCount?: Long;
    sampleSum?: number;
    bucket?: { cumulativeCount?: Long; upperBound?: number }[];
  };
  timestampMs?: Long;
}

function toType(type: string | undefined): MetricType {
  switch (type) {
    case "COUNTER":
      return "counter";
    case "GAUGE":
      return "gauge";
    case "SUMMARY":
      return "summary";
    case "HISTOGRAM":
    case "GAUGE_HISTOGRAM":
      return "histogram";
    default:
      return "untyped";
  }
}

/** The fields of each value message the text format holds; anything else makes the series keep its `protoValue`. */
const CLASSIC_FIELDS: Readonly<Record<string, ReadonlySet<string>>> = {
  counter: new Set(["value"]),
  summary: new Set(["sampleCount", "sampleSum", "quantile"]),
  histogram: new Set(["sampleCount", "sampleSum", "bucket"]),
};
const CLASSIC_BUCKET_FIELDS = new Set(["cumulativeCount", "upperBound"]);

/**
 * The value message as JSON when it holds more than the text format can: native histogram fields, exemplars, float
 * counts, created timestamps. Non-finite doubles become strings (`fromObject` reads them back with `Number`).
 */
function protoValue(m: ProtoMetric, type: MetricType): string | undefined {
  if (type !== "counter" && type !== "summary" && type !== "histogram") return undefined;
  const value = m[type] as Record<string, unknown> | undefined;
  if (value === undefined) return undefined;
  const classic = CLASSIC_FIELDS[type] ?? new Set();
  const richer =
    Object.keys(value).some((k) => !classic.has(k)) ||
    (type === "histogram" &&
      (m.histogram?.bucket ?? []).some((b) => Object.keys(b).some((k) => !CLASSIC_BUCKET_FIELDS.has(k))));
  if (!richer) return undefined;
  return JSON.stringify(value, (_k, v: unknown) =>
    typeof v === "number" && !Number.isFinite(v) ? String(v) : v,
  );
}

function toMetric(m: ProtoMetric, type: MetricType): Metric {
  const labels = (m.label ?? []).map((l) => [l.name ?? "", l.value ?? ""] as [string, string]);
  const extra: Partial<Metric> = {};
  if (m.timestampMs !== undefined) extra.timestampMs = Number(m.timestampMs);
  const rich = protoValue(m, type);
  if (rich !== undefined) extra.protoValue = rich;
  switch (type) {
    case "summary":
      return {
        labels,
        quantiles: (m.summary?.quantile ?? []).map((q) => [q.quantile ?? 0, q.value ?? 0]),
        sum: m.summary?.sampleSum ?? 0,
        count: Number(m.summary?.sampleCount ?? 0),
        ...extra,
      };
    case "histogram":
      return {
        labels,
        buckets: (m.histogram?.bucket ?? []).map((b) => [b.upperBound ?? 0, Number(b.cumulativeCount ?? 0)]),
        sum: m.histogram?.sampleSum ?? 0,
        count: Number(m.histogram?.sampleCount ?? 0),
        ...extra,
      };
    default:
      return {
        labels,
        value:
          (type === "counter" ? m.counter?.value : type === "gauge" ? m.gauge?.value : m.untyped?.value) ?? 0,
        ...extra,
      };
  }
}
