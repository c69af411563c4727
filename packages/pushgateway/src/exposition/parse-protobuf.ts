import type protobuf from "protobufjs";
import { ParseError } from "../errors.js";
import type { Metric, MetricFamily, MetricType } from "./metric-family.js";

// io.prometheus.client.MetricFamily, as in prometheus/client_model metrics.proto (the fields a push uses).
const PROTO = `
syntax = "proto2";
package io.prometheus.client;
message LabelPair { optional string name = 1; optional string value = 2; }
enum MetricType { COUNTER = 0; GAUGE = 1; SUMMARY = 2; UNTYPED = 3; HISTOGRAM = 4; GAUGE_HISTOGRAM = 5; }
message Gauge { optional double value = 1; }
message Counter { optional double value = 1; }
message Quantile { optional double quantile = 1; optional double value = 2; }
message Summary { optional uint64 sample_count = 1; optional double sample_sum = 2; repeated Quantile quantile = 3; }
message Untyped { optional double value = 1; }
message Bucket { optional uint64 cumulative_count = 1; optional double cumulative_count_float = 4; optional double upper_bound = 2; }
message Histogram { optional uint64 sample_count = 1; optional double sample_count_float = 4; optional double sample_sum = 2; repeated Bucket bucket = 3; }
message Metric {
  repeated LabelPair label = 1; optional Gauge gauge = 2; optional Counter counter = 3; optional Summary summary = 4;
  optional Untyped untyped = 5; optional Histogram histogram = 7; optional int64 timestamp_ms = 6;
}
message MetricFamily { optional string name = 1; optional string help = 2; optional MetricType type = 3; repeated Metric metric = 4; }
`;

let codec: { family: protobuf.Type; reader: typeof protobuf.Reader } | undefined;

/**
 * protobufjs and the compiled schema, loaded on the first protobuf push: a gateway fed only text never pays the
 * library's ~9 MB of resident memory.
 */
async function loadCodec(): Promise<NonNullable<typeof codec>> {
  if (codec === undefined) {
    const { default: pb } = await import("protobufjs");
    codec = {
      family: pb.parse(PROTO).root.lookupType("io.prometheus.client.MetricFamily"),
      reader: pb.Reader,
    };
  }
  return codec;
}

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
      const f = familyType.toObject(message, {
        longs: Number,
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

interface ProtoMetric {
  label?: { name?: string; value?: string }[];
  gauge?: { value?: number };
  counter?: { value?: number };
  untyped?: { value?: number };
  summary?: { sampleCount?: number; sampleSum?: number; quantile?: { quantile?: number; value?: number }[] };
  histogram?: {
    sampleCount?: number;
    sampleSum?: number;
    bucket?: { cumulativeCount?: number; upperBound?: number }[];
  };
  timestampMs?: number;
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

function toMetric(m: ProtoMetric, type: MetricType): Metric {
  const labels = (m.label ?? []).map((l) => [l.name ?? "", l.value ?? ""] as [string, string]);
  const ts = m.timestampMs === undefined ? {} : { timestampMs: m.timestampMs };
  switch (type) {
    case "summary":
      return {
        labels,
        quantiles: (m.summary?.quantile ?? []).map((q) => [q.quantile ?? 0, q.value ?? 0]),
        sum: m.summary?.sampleSum ?? 0,
        count: m.summary?.sampleCount ?? 0,
        ...ts,
      };
    case "histogram":
      return {
        labels,
        buckets: (m.histogram?.bucket ?? []).map((b) => [b.upperBound ?? 0, b.cumulativeCount ?? 0]),
        sum: m.histogram?.sampleSum ?? 0,
        count: m.histogram?.sampleCount ?? 0,
        ...ts,
      };
    default:
      return {
        labels,
        value:
          (type === "counter" ? m.counter?.value : type === "gauge" ? m.gauge?.value : m.untyped?.value) ?? 0,
        ...ts,
      };
  }
}
