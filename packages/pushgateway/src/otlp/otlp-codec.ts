import { createRequire } from "node:module";
import type protobuf from "protobufjs";
import { ParseError } from "../errors.js";

// opentelemetry-proto v1.x: collector/metrics/v1/metrics_service.proto, metrics/v1/metrics.proto,
// common/v1/common.proto, resource/v1/resource.proto (the fields a receiver reads; field numbers as upstream), and
// google/rpc/status.proto without `details`, for the error answer (OTLP specification, "OTLP/HTTP Response").
const PROTO = `
syntax = "proto3";
package otlp;
message AnyValue {
  oneof value {
    string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4;
    ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; }
message Resource { repeated KeyValue attributes = 1; }
message ResourceMetrics { Resource resource = 1; repeated ScopeMetrics scope_metrics = 2; string schema_url = 3; }
message ScopeMetrics { InstrumentationScope scope = 1; repeated Metric metrics = 2; string schema_url = 3; }
message Metric {
  string name = 1; string description = 2; string unit = 3;
  oneof data {
    Gauge gauge = 5; Sum sum = 7; Histogram histogram = 9; ExponentialHistogram exponential_histogram = 10;
    Summary summary = 11;
  }
}
enum AggregationTemporality {
  AGGREGATION_TEMPORALITY_UNSPECIFIED = 0; AGGREGATION_TEMPORALITY_DELTA = 1; AGGREGATION_TEMPORALITY_CUMULATIVE = 2;
}
message Gauge { repeated NumberDataPoint data_points = 1; }
message Sum { repeated NumberDataPoint data_points = 1; AggregationTemporality aggregation_temporality = 2; bool is_monotonic = 3; }
message Histogram { repeated HistogramDataPoint data_points = 1; AggregationTemporality aggregation_temporality = 2; }
message ExponentialHistogram {
  repeated ExponentialHistogramDataPoint data_points = 1; AggregationTemporality aggregation_temporality = 2;
}
message Summary { repeated SummaryDataPoint data_points = 1; }
message NumberDataPoint {
  repeated KeyValue attributes = 7; fixed64 start_time_unix_nano = 2; fixed64 time_unix_nano = 3;
  oneof value { double as_double = 4; sfixed64 as_int = 6; }
  uint32 flags = 8;
}
message HistogramDataPoint {
  repeated KeyValue attributes = 9; fixed64 start_time_unix_nano = 2; fixed64 time_unix_nano = 3;
  fixed64 count = 4; optional double sum = 5; repeated fixed64 bucket_counts = 6; repeated double explicit_bounds = 7;
  uint32 flags = 10; optional double min = 11; optional double max = 12;
}
message ExponentialHistogramDataPoint {
  repeated KeyValue attributes = 1; fixed64 start_time_unix_nano = 2; fixed64 time_unix_nano = 3;
  fixed64 count = 4; optional double sum = 5; sint32 scale = 6; fixed64 zero_count = 7;
  Buckets positive = 8; Buckets negative = 9; uint32 flags = 10; optional double min = 12; optional double max = 13;
  double zero_threshold = 14;
  message Buckets { sint32 offset = 1; repeated uint64 bucket_counts = 2; }
}
message SummaryDataPoint {
  repeated KeyValue attributes = 7; fixed64 start_time_unix_nano = 2; fixed64 time_unix_nano = 3;
  fixed64 count = 4; double sum = 5; repeated ValueAtQuantile quantile_values = 6; uint32 flags = 8;
  message ValueAtQuantile { double quantile = 1; double value = 2; }
}
message ExportMetricsServiceRequest { repeated ResourceMetrics resource_metrics = 1; }
message ExportMetricsPartialSuccess { int64 rejected_data_points = 1; string error_message = 2; }
message ExportMetricsServiceResponse { ExportMetricsPartialSuccess partial_success = 1; }
message Status { int32 code = 1; string message = 2; }
`;

/** An attribute value (protobufjs object form: longs as strings, bytes base64). */
export interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
  kvlistValue?: { values?: KeyValue[] };
  bytesValue?: string;
}
export interface KeyValue {
  key?: string;
  value?: AnyValue;
}
interface Point {
  attributes?: KeyValue[];
  flags?: number;
}
export interface NumberDataPoint extends Point {
  asDouble?: number;
  asInt?: string;
}
export interface HistogramDataPoint extends Point {
  count?: string;
  sum?: number;
  bucketCounts?: string[];
  explicitBounds?: number[];
}
export interface ExponentialHistogramDataPoint extends Point {
  count?: string;
  sum?: number;
  scale?: number;
  zeroCount?: string;
  zeroThreshold?: number;
  positive?: { offset?: number; bucketCounts?: string[] };
  negative?: { offset?: number; bucketCounts?: string[] };
}
export interface SummaryDataPoint extends Point {
  count?: string;
  sum?: number;
  quantileValues?: { quantile?: number; value?: number }[];
}
/** `AGGREGATION_TEMPORALITY_*` by name. */
export type Temporality = string;
export interface OtlpMetric {
  name?: string;
  description?: string;
  unit?: string;
  gauge?: { dataPoints?: NumberDataPoint[] };
  sum?: { dataPoints?: NumberDataPoint[]; aggregationTemporality?: Temporality; isMonotonic?: boolean };
  histogram?: { dataPoints?: HistogramDataPoint[]; aggregationTemporality?: Temporality };
  exponentialHistogram?: {
    dataPoints?: ExponentialHistogramDataPoint[];
    aggregationTemporality?: Temporality;
  };
  summary?: { dataPoints?: SummaryDataPoint[] };
}
export interface ResourceMetrics {
  resource?: { attributes?: KeyValue[] };
  scopeMetrics?: { scope?: { name?: string; version?: string }; metrics?: OtlpMetric[] }[];
}
/** `ExportMetricsServiceRequest`, read. */
export interface ExportRequest {
  resourceMetrics?: ResourceMetrics[];
}

/** The two encodings of OTLP/HTTP (specification "OTLP/HTTP Request"), by `Content-Type`. */
export type OtlpEncoding = "protobuf" | "json";

let root: protobuf.Root | undefined;
function types(): protobuf.Root {
  if (root === undefined) {
    const pb = createRequire(import.meta.url)("protobufjs") as typeof protobuf;
    root = pb.parse(PROTO, { keepCase: false }).root;
  }
  return root;
}

const OBJECT_OPTIONS = { longs: String, enums: String, bytes: String, defaults: false } as const;

/**
 * Decodes an `ExportMetricsServiceRequest`: binary protobuf, or OTLP's JSON (lowerCamelCase keys, also the
 * proto's snake_case names; 64-bit integers as strings or numbers; enums as integers or names; ids hex, unused here).
 *
 * @throws {ParseError} with protobufjs' or JSON's message
 */
export function decodeExportRequest(body: Buffer, encoding: OtlpEncoding): ExportRequest {
  const type = types().lookupType("otlp.ExportMetricsServiceRequest");
  try {
    if (encoding === "protobuf") return type.toObject(type.decode(body), OBJECT_OPTIONS) as ExportRequest;
    const json = JSON.parse(body.toString("utf8")) as unknown;
    if (json === null || typeof json !== "object" || Array.isArray(json))
      throw new Error("the body is not a JSON object");
    const message = type.fromObject(camelCaseKeys(json) as Record<string, unknown>);
    return type.toObject(message, OBJECT_OPTIONS) as ExportRequest;
  } catch (error) {
    throw new ParseError(`cannot decode the OTLP ${encoding} body: ${(error as Error).message}`);
  }
}

/** `ExportMetricsServiceResponse` in the request's encoding; `partial_success` only when something was rejected. */
export function encodeExportResponse(
  result: { rejected: number; message: string },
  encoding: OtlpEncoding,
): Buffer | string {
  const value =
    result.rejected > 0
      ? { partialSuccess: { rejectedDataPoints: String(result.rejected), errorMessage: result.message } }
      : {};
  if (encoding === "json") return JSON.stringify(value);
  const type = types().lookupType("otlp.ExportMetricsServiceResponse");
  return Buffer.from(type.encode(type.fromObject(value)).finish());
}

/** `google.rpc.Status` in the request's encoding, the body of an OTLP/HTTP error answer. */
export function encodeStatus(
  status: { code: number; message: string },
  encoding: OtlpEncoding,
): Buffer | string {
  if (encoding === "json") return JSON.stringify(status);
  const type = types().lookupType("otlp.Status");
  return Buffer.from(type.encode(type.fromObject(status)).finish());
}

/** OTLP JSON allows the proto field names too (`resource_metrics`); protobufjs' JSON mapping reads camelCase. */
function camelCaseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelCaseKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()),
      camelCaseKeys(v),
    ]),
  );
}
