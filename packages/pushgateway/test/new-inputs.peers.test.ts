// Real clients on the inputs beyond upstream: Debian's python3-prometheus-client pushing to the aggregating URL
// (its gateway address given as http://host:port/aggregate), and the OpenTelemetry JS SDK's OTLP exporter whose
// result Debian's Prometheus scrapes, native histogram included.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { AggregationType, MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { eventually } from "./support/eventually.js";
import { startGateway, stopAll } from "./support/processes.js";
import { promtoolProblems, startPrometheus } from "./support/prometheus.js";

const exec = promisify(execFile);
let base: string;

before(async () => {
  ({ base } = await startGateway());
});

after(stopAll);

test("the Python client's push_to_gateway and pushadd_to_gateway on http://gw/aggregate add up across runs", async () => {
  const script = `
import sys
from prometheus_client import CollectorRegistry, Counter, Histogram, push_to_gateway, pushadd_to_gateway
for run, push in enumerate([push_to_gateway, pushadd_to_gateway, push_to_gateway]):
    r = CollectorRegistry()
    Counter('rows', 'Rows processed', ['table'], registry=r).labels(table='orders').inc(10 + run)
    h = Histogram('step_seconds', 'Step time', buckets=[0.1, 1], registry=r)
    h.observe(0.05)
    h.observe(0.5)
    push(sys.argv[1], job='etl', grouping_key={'shard': '3'}, registry=r)
`;
  await exec("/usr/bin/python3", ["-c", script, `${base.replace("http://", "")}/aggregate`], {
    timeout: 60_000,
  });
  const text = await (await fetch(`${base}/metrics`)).text();
  const g = 'instance="",job="etl",shard="3"';
  assert.match(text, new RegExp(`^rows_total\\{${g},table="orders"\\} 33$`, "m"));
  assert.match(text, new RegExp(`^step_seconds_bucket\\{${g},le="0.1"\\} 3$`, "m"));
  assert.match(text, new RegExp(`^step_seconds_bucket\\{${g},le="1"\\} 6$`, "m"));
  assert.match(text, new RegExp(`^step_seconds_count\\{${g}\\} 6$`, "m"));
  const sum = new RegExp(`^step_seconds_sum\\{${g}\\} (\\S+)$`, "m").exec(text)?.[1];
  assert.ok(Math.abs(Number(sum) - 1.65) < 1e-9, `step_seconds_sum ${sum}`);
  // The client's _created gauges take the latest value (gauges are not summed by default).
  assert.match(text, new RegExp(`^rows_created\\{${g},table="orders"\\} \\d+(\\.\\d+)?(e\\+09)?$`, "m"));
  assert.deepEqual(await promtoolProblems(text), []);
});

test("the OpenTelemetry SDK's export is scraped by Prometheus: counter, classic and native histogram, job and instance", async () => {
  const prometheus = await startPrometheus(base.replace("http://", ""), { nativeHistograms: true });
  const provider = new MeterProvider({
    resource: resourceFromAttributes({ "service.name": "otel-batch", "service.instance.id": "worker-2" }),
    views: [{ instrumentName: "payload.size", aggregation: { type: AggregationType.EXPONENTIAL_HISTOGRAM } }],
    readers: [
      new PeriodicExportingMetricReader({
        exporter: new OTLPMetricExporter({ url: `${base}/v1/metrics` }),
        exportIntervalMillis: 3_600_000,
      }),
    ],
  });
  try {
    const meter = provider.getMeter("batch");
    meter.createCounter("records.written", { unit: "{record}" }).add(12, { sink: "s3" });
    meter.createHistogram("flush.duration", { unit: "s" }).record(0.3);
    const sizes = meter.createHistogram("payload.size", { unit: "By" });
    for (const v of [100, 200, 400, 800]) sizes.record(v);
    await provider.forceFlush();
    const value = async (promql: string) => (await prometheus.query(promql))[0];
    assert.ok(
      await eventually(async () => (await value("records_written_total")) !== undefined, 20_000),
      "Prometheus never saw records_written_total",
    );
    const counter = await value("records_written_total");
    assert.equal(counter?.value[1], "12");
    assert.equal(counter?.metric.job, "otel-batch");
    assert.equal(counter?.metric.instance, "worker-2");
    assert.equal(counter?.metric.sink, "s3");
    assert.equal((await value("flush_duration_seconds_count"))?.value[1], "1");
    // The SDK's default bounds are 0, 5, 10, … (Prometheus may write a protobuf-scraped bound as 5.0).
    assert.equal((await value('flush_duration_seconds_bucket{le=~"5|5.0"}'))?.value[1], "1");
    assert.equal((await value('flush_duration_seconds_bucket{le=~"0|0.0"}'))?.value[1], "0");
    // Native: Prometheus computes from the native buckets (histogram_count of the native series).
    assert.ok(
      await eventually(
        async () => (await value("histogram_count(payload_size_bytes)"))?.value[1] === "4",
        20_000,
      ),
      "no native histogram_count of 4",
    );
    assert.equal((await value("histogram_sum(payload_size_bytes)"))?.value[1], "1500");
  } finally {
    await provider.shutdown();
    await prometheus.close();
  }
});
