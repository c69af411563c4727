import protobuf from "protobufjs";

/**
 * client_model's `MetricFamily` (metrics.proto as Debian's golang-github-prometheus-client-model-dev ships it), written independently of the
 * gateway's own schema so the tests check it rather than share its mistakes.
 */
export const metricFamilyType = protobuf
  .parse(`
syntax = "proto2";
package io.prometheus.client;
message LabelPair { optional string name = 1; optional string value = 2; }
enum MetricType { COUNTER = 0; GAUGE = 1; SUMMARY = 2; UNTYPED = 3; HISTOGRAM = 4; GAUGE_HISTOGRAM = 5; }
message Gauge { optional double value = 1; }
message Ts { optional int64 seconds = 1; optional int32 nanos = 2; }
message Exemplar { repeated LabelPair label = 1; optional double value = 2; optional Ts timestamp = 3; }
message Counter { optional double value = 1; optional Exemplar exemplar = 2; }
message Quantile { optional double quantile = 1; optional double value = 2; }
message Summary { optional uint64 sample_count = 1; optional double sample_sum = 2; repeated Quantile quantile = 3; }
message Untyped { optional double value = 1; }
message Bucket {
  optional uint64 cumulative_count = 1; optional double cumulative_count_float = 4; optional double upper_bound = 2;
  optional Exemplar exemplar = 3;
}
message Span { optional sint32 offset = 1; optional uint32 length = 2; }
message Histogram {
  optional uint64 sample_count = 1; optional double sample_count_float = 4; optional double sample_sum = 2;
  repeated Bucket bucket = 3; optional sint32 schema = 5; optional double zero_threshold = 6;
  optional uint64 zero_count = 7; optional double zero_count_float = 8;
  repeated Span negative_span = 9; repeated sint64 negative_delta = 10; repeated double negative_count = 11;
  repeated Span positive_span = 12; repeated sint64 positive_delta = 13; repeated double positive_count = 14;
}
message Metric {
  repeated LabelPair label = 1; optional Gauge gauge = 2; optional Counter counter = 3; optional Summary summary = 4;
  optional Untyped untyped = 5; optional Histogram histogram = 7; optional int64 timestamp_ms = 6;
}
message MetricFamily { optional string name = 1; optional string help = 2; optional MetricType type = 3; repeated Metric metric = 4; }
`)
  .root.lookupType("io.prometheus.client.MetricFamily");
