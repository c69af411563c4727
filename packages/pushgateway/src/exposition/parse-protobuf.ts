import { parseMediaType } from "@local/go-compat/media-type";
import { ParseError } from "../errors.js";
import { decodeUtf8Lossless } from "./lossless-utf8.js";
import type { Metric, MetricFamily, MetricType } from "./metric-family.js";
import { isLegacyMetricName, isUtf8Name } from "./metric-names.js";
import { type Codec, loadCodec } from "./protobuf-codec.js";

/**
 * Whether a Content-Type announces varint-delimited `MetricFamily` protobuf (what Go clients push), read as upstream's
 * handler/push.go reads it: Go's mime.ParseMediaType must succeed, and the parameter values match exactly.
 */
export function isDelimitedProtobuf(contentType: string): boolean {
  const media = parseMediaType(contentType);
  if ("error" in media || media.type !== "application/vnd.google.protobuf") return false;
  return (
    media.params.get("proto") === "io.prometheus.client.MetricFamily" &&
    media.params.get("encoding") === "delimited"
  );
}

/**
 * Reads varint-length-delimited `MetricFamily` messages until the end of the body; a later family of the same name
 * replaces an earlier one (upstream).
 *
 * @throws {ParseError}
 */
export async function parseDelimitedProtobuf(
  body: Uint8Array,
  options: { utf8?: boolean } = {},
): Promise<MetricFamily[]> {
  return decodeDelimitedProtobuf(body, { ...options, codec: await loadCodec() });
}

/**
 * {@link parseDelimitedProtobuf} with the codec already loaded, synchronously: a queued push parses and applies in one
 * go, so pushes reach the store in the order they were queued (handlers/write-queue.ts).
 *
 * @throws {ParseError}
 */
export function decodeDelimitedProtobuf(
  body: Uint8Array,
  options: { utf8?: boolean; codec: Codec },
): MetricFamily[] {
  const familyType = options.codec.family;
  const byName = new Map<string, MetricFamily>();
  let at = 0;
  while (at < body.length) {
    const { size, next } = readUvarint(body, at);
    // protodelim reads exactly `size` bytes (io.ReadFull); fewer left is io.ErrUnexpectedEOF.
    if (next + size > body.length) throw new ParseError("unexpected EOF");
    let message: ReturnType<typeof familyType.decode>;
    try {
      message = familyType.decode(body.subarray(next, next + size));
    } catch (cause) {
      // proto.Unmarshal of a complete message: anything it cannot read is invalid wire-format data (Go's message
      // starts "proto:" and, by google.golang.org/protobuf's design, a space that may be a non-breaking one).
      throw new ParseError("proto: cannot parse invalid wire-format data", { cause });
    }
    at = next + size;
    // Longs as strings: uint64 counts and int64 timestamps beyond 2^53 survive the round trip.
    const f = familyType.toObject(message, { longs: String, enums: String, defaults: false }) as ProtoFamily;
    // protobufjs decodes a string that is not UTF-8 with U+FFFD: a label value that shows one is read again from
    // the wire, its bytes kept (lossless-utf8.ts), so that the push is refused as upstream refuses it.
    if (f.metric?.some((m) => m.label?.some((l) => l.value?.includes("\uFFFD")))) {
      const raw = rawLabelValues(body.subarray(next, at));
      for (const [i, m] of f.metric.entries()) {
        for (const [j, l] of (m.label ?? []).entries()) {
          const bytes = raw[i]?.[j];
          if (bytes !== undefined && l.value?.includes("\uFFFD")) l.value = decodeUtf8Lossless(bytes);
        }
      }
    }
    const type = toType(f.type);
    byName.set(f.name ?? "", {
      name: f.name ?? "",
      // A help field sent empty is still set: upstream's scrape writes `# HELP name ` for it (expfmt: Help != nil).
      help: f.help,
      type,
      metrics: (f.metric ?? []).map((m) => toMetric(m, type)),
    });
  }
  for (const f of byName.values()) {
    const valid = options.utf8 ? isUtf8Name(f.name) : isLegacyMetricName(f.name);
    if (!valid) throw new ParseError(`invalid metric name "${f.name}"`);
  }
  return [...byName.values()];
}

/**
 * Go's `binary.ReadUvarint` as protodelim's `UnmarshalFrom` calls it before each message: the end of the body before a
 * varint's first byte is the normal end (the caller's loop stops), inside a varint `unexpected EOF`, more than ten
 * bytes or a tenth byte above 1 `binary: varint overflows a 64-bit integer`.
 */
export function readUvarint(body: Uint8Array, start: number): { size: number; next: number } {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < 10; i++) {
    const byte = body[start + i];
    if (byte === undefined) throw new ParseError("unexpected EOF");
    if (byte < 0x80) {
      if (i === 9 && byte > 1) break;
      return { size: value + byte * scale, next: start + i + 1 };
    }
    value += (byte & 0x7f) * scale;
    scale *= 128;
  }
  throw new ParseError("binary: varint overflows a 64-bit integer");
}

/**
 * The raw bytes of each `Metric.label[].value` of one `MetricFamily` message, by metric and label (wire format:
 * MetricFamily field 4 → Metric field 1 → LabelPair field 2). Only called for a message protobufjs has decoded.
 */
function rawLabelValues(message: Uint8Array): Uint8Array[][] {
  const metrics: Uint8Array[][] = [];
  for (const [field, metric] of lengthDelimited(message)) {
    if (field !== 4) continue;
    const values: Uint8Array[] = [];
    for (const [mField, pair] of lengthDelimited(metric)) {
      if (mField !== 1) continue;
      let value: Uint8Array = new Uint8Array(0);
      for (const [pField, bytes] of lengthDelimited(pair)) if (pField === 2) value = bytes;
      values.push(value);
    }
    metrics.push(values);
  }
  return metrics;
}

/** The length-delimited fields of a message, by field number; other wire types skipped. */
function* lengthDelimited(message: Uint8Array): Generator<[number, Uint8Array]> {
  let at = 0;
  while (at < message.length) {
    const key = readUvarint(message, at);
    at = key.next;
    const wire = key.size % 8;
    const field = Math.floor(key.size / 8);
    if (wire === 0) at = readUvarint(message, at).next;
    else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else if (wire === 2) {
      const length = readUvarint(message, at);
      yield [field, message.subarray(length.next, length.next + length.size)];
      at = length.next + length.size;
    } else return;
  }
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
    case "UNTYPED":
      return "untyped";
    default:
      // Absent, or a number client_model does not know (Go's proto2 decoder keeps it as an unknown field): `GetType()`
      // is then the enum's default, COUNTER.
      return "counter";
  }
}

/** The `Metric` field that holds a series' value in a family of this type. */
const VALUE_FIELD = {
  counter: "counter",
  gauge: "gauge",
  summary: "summary",
  histogram: "histogram",
  untyped: "untyped",
} as const satisfies Record<MetricType, keyof ProtoMetric>;

/** The fields of each value message the text format holds; anything else makes the series keep its `protoValue`. */
const CLASSIC_FIELDS: Readonly<Record<string, ReadonlySet<string>>> = {
  counter: new Set(["value"]),
  summary: new Set(["sampleCount", "sampleSum", "quantile"]),
  histogram: new Set(["sampleCount", "sampleSum", "bucket"]),
};
const CLASSIC_BUCKET_FIELDS = new Set(["cumulativeCount", "upperBound"]);

/**
 * The value message as JSON when it holds more than the text format can: native histogram fields, exemplars, float
 * counts, created timestamps, or a histogram without the `+Inf` bucket the text form adds. Non-finite doubles become strings (`fromObject` reads them back with `Number`).
 */
function protoValue(m: ProtoMetric, type: MetricType): string | undefined {
  if (type !== "counter" && type !== "summary" && type !== "histogram") return undefined;
  const value = m[type] as Record<string, unknown> | undefined;
  if (value === undefined) return undefined;
  const classic = CLASSIC_FIELDS[type] ?? new Set();
  const buckets = m.histogram?.bucket ?? [];
  const richer =
    Object.keys(value).some((k) => !classic.has(k)) ||
    (type === "histogram" &&
      (buckets.some((b) => Object.keys(b).some((k) => !CLASSIC_BUCKET_FIELDS.has(k))) ||
        // Go clients send no +Inf bucket; the text form has one, upstream's protobuf scrape does not.
        !buckets.some((b) => b.upperBound === Number.POSITIVE_INFINITY)));
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
  if (m[VALUE_FIELD[type]] === undefined) extra.valueMissing = true;
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
