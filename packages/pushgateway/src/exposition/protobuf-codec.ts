import { createRequire } from "node:module";
import type protobuf from "protobufjs";

// io.prometheus.client.MetricFamily, as in prometheus/client_model metrics.proto (current master: native histogram
// fields, exemplars, created timestamps), with google.protobuf.Timestamp inlined.
const PROTO = `
syntax = "proto2";
package io.prometheus.client;
message Timestamp { optional int64 seconds = 1; optional int32 nanos = 2; }
message LabelPair { optional string name = 1; optional string value = 2; }
enum MetricType { COUNTER = 0; GAUGE = 1; SUMMARY = 2; UNTYPED = 3; HISTOGRAM = 4; GAUGE_HISTOGRAM = 5; }
message Gauge { optional double value = 1; }
message Exemplar { repeated LabelPair label = 1; optional double value = 2; optional Timestamp timestamp = 3; }
message Counter { optional double value = 1; optional Exemplar exemplar = 2; optional Timestamp created_timestamp = 3; }
message Quantile { optional double quantile = 1; optional double value = 2; }
message Summary {
  optional uint64 sample_count = 1; optional double sample_sum = 2; repeated Quantile quantile = 3;
  optional Timestamp created_timestamp = 4;
}
message Untyped { optional double value = 1; }
message Bucket {
  optional uint64 cumulative_count = 1; optional double cumulative_count_float = 4; optional double upper_bound = 2;
  optional Exemplar exemplar = 3;
}
message BucketSpan { optional sint32 offset = 1; optional uint32 length = 2; }
message Histogram {
  optional uint64 sample_count = 1; optional double sample_count_float = 4; optional double sample_sum = 2;
  repeated Bucket bucket = 3; optional Timestamp created_timestamp = 15;
  optional sint32 schema = 5; optional double zero_threshold = 6; optional uint64 zero_count = 7;
  optional double zero_count_float = 8;
  repeated BucketSpan negative_span = 9; repeated sint64 negative_delta = 10; repeated double negative_count = 11;
  repeated BucketSpan positive_span = 12; repeated sint64 positive_delta = 13; repeated double positive_count = 14;
  repeated Exemplar exemplars = 16;
}
message Metric {
  repeated LabelPair label = 1; optional Gauge gauge = 2; optional Counter counter = 3; optional Summary summary = 4;
  optional Untyped untyped = 5; optional Histogram histogram = 7; optional int64 timestamp_ms = 6;
}
message MetricFamily { optional string name = 1; optional string help = 2; optional MetricType type = 3; repeated Metric metric = 4; }
`;

/** protobufjs's reader and writer and the compiled `MetricFamily` type. */
export interface Codec {
  readonly family: protobuf.Type;
  readonly reader: typeof protobuf.Reader;
  readonly writer: typeof protobuf.Writer;
}

let codec: Codec | undefined;

/**
 * protobufjs and the compiled schema, loaded on the first protobuf push or scrape: a gateway that only sees text never pays the
 * library's ~9 MB of resident memory. Synchronous (protobufjs is CommonJS), so a queued push parses and submits in
 * one run and reaches the store in its turn (handlers/write-queue.ts).
 */
export function protobufCodec(): Codec {
  if (codec === undefined) {
    const pb = createRequire(import.meta.url)("protobufjs") as typeof protobuf;
    codec = {
      family: pb.parse(PROTO).root.lookupType("io.prometheus.client.MetricFamily"),
      reader: pb.Reader,
      writer: pb.Writer,
    };
  }
  return codec;
}

/** {@link protobufCodec} for callers that await. */
export async function loadCodec(): Promise<Codec> {
  return protobufCodec();
}
