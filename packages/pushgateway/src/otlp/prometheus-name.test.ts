import assert from "node:assert/strict";
import { test } from "node:test";
import { type OtelKind, prometheusLabelName, prometheusMetricName } from "./prometheus-name.js";

// prometheus/otlptranslator metric_namer_test.go `TestMetricNamer_Build`, the rows with UTF8Allowed = false,
// WithMetricSuffixes = true and no namespace (what Prometheus' OTLP receiver does by default); kinds: monotonic
// counter → counter, gauge → gauge, everything else → other.
const UPSTREAM: [string, string, OtelKind, string][] = [
  ["requests", "", "counter", "requests_total"],
  ["cpu_usage", "1", "gauge", "cpu_usage_ratio"],
  ["items", "1", "counter", "items_total"],
  ["response_time", "ms", "gauge", "response_time_milliseconds"],
  ["memory_usage", "By", "gauge", "memory_usage_bytes"],
  ["requests", "1/s", "gauge", "requests_per_second"],
  ["throughput", "By/s", "gauge", "throughput_bytes_per_second"],
  ["custom_metric", "custom_unit", "gauge", "custom_metric_custom_unit"],
  ["custom_metric", "{custom}", "gauge", "custom_metric"],
  ["custom_metric", "By/{custom}", "gauge", "custom_metric_bytes"],
  ["requests_total", "", "counter", "requests_total"],
  ["cpu_usage_ratio", "1", "gauge", "cpu_usage_ratio"],
  ["response_time_seconds", "s", "gauge", "response_time_seconds"],
  [
    "metric__with__multiple__underscores",
    "unit__multiple__underscores",
    "gauge",
    "metric_with_multiple_underscores_unit_multiple_underscores",
  ],
  ["custom_metric", "unit@with#special/chars", "gauge", "custom_metric_unit_with_special_per_chars"],
  ["@#$%", "", "gauge", ""],
  ["request_duration", "s", "other", "request_duration_seconds"],
  ["request_size", "By", "other", "request_size_bytes"],
  ["active_connections", "", "other", "active_connections"],
  ["uptime", "d", "gauge", "uptime_days"],
  ["duration", "h", "gauge", "duration_hours"],
];

test("metric names and units translate as prometheus/otlptranslator's table", () => {
  for (const [name, unit, kind, want] of UPSTREAM) {
    assert.equal(prometheusMetricName(name, { unit, kind }), want, `${name} [${unit}] ${kind}`);
  }
});

test("the issue's minimum: dots become _, ms/s/By map, {…} units drop, monotonic sums end in _total", () => {
  assert.equal(
    prometheusMetricName("http.server.request.duration", { unit: "s", kind: "other" }),
    "http_server_request_duration_seconds",
  );
  assert.equal(prometheusMetricName("jobs.done", { unit: "{job}", kind: "counter" }), "jobs_done_total");
  assert.equal(prometheusMetricName("db.latency", { unit: "ms", kind: "gauge" }), "db_latency_milliseconds");
  assert.equal(prometheusMetricName("queue.size", { unit: "By", kind: "gauge" }), "queue_size_bytes");
  assert.equal(prometheusMetricName("123_requests", { unit: "", kind: "counter" }), "_123_requests_total");
});

test("attribute keys become label names; a leading digit or underscore is prefixed with key", () => {
  assert.equal(prometheusLabelName("http.route"), "http_route");
  assert.equal(prometheusLabelName("9x"), "key_9x");
  assert.equal(prometheusLabelName("_private"), "key_private");
  assert.equal(prometheusLabelName("__name__"), "key__name__");
  assert.equal(prometheusLabelName("ok_name"), "ok_name");
});
