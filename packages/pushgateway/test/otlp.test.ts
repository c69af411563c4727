// The OpenTelemetry JS SDK's own OTLP exporters (JSON over HTTP and protobuf) pushing to the gateway's
// POST /v1/metrics, and the result read back from a scrape.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { gzipSync } from "node:zlib";
import {
  AggregationTemporalityPreference,
  OTLPMetricExporter as JsonExporter,
} from "@opentelemetry/exporter-metrics-otlp-http";
import { OTLPMetricExporter as ProtoExporter } from "@opentelemetry/exporter-metrics-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { AggregationType, MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { metricFamilyType as family } from "./support/metric-family-type.js";
import { startGateway, stopAll } from "./support/processes.js";
import { DELIMITED, splitDelimited } from "./support/scrape-fixtures.js";

after(stopAll);

let base = "";
before(async () => {
  base = (await startGateway()).base;
});

type Exporter = JsonExporter | ProtoExporter;

/** A meter provider of service `service` exporting to the gateway only when flushed. */
function provider(options: { service: string; instance?: string; exporter: Exporter }) {
  return new MeterProvider({
    resource: resourceFromAttributes({
      "service.name": options.service,
      ...(options.instance === undefined ? {} : { "service.instance.id": options.instance }),
      "deployment.environment.name": "test",
    }),
    views: [
      { instrumentName: "job.payload.size", aggregation: { type: AggregationType.EXPONENTIAL_HISTOGRAM } },
    ],
    readers: [
      new PeriodicExportingMetricReader({ exporter: options.exporter, exportIntervalMillis: 3_600_000 }),
    ],
  });
}

/** The group's lines of a text scrape, `push_*` gauges left out (and `target_info` unless `withInfo`), sorted. */
const lines = async (job: string, options: { withInfo?: boolean } = {}) =>
  (await (await fetch(`${base}/metrics`)).text())
    .split("\n")
    .filter((l) => l.includes(`job="${job}"`) && !l.startsWith("push_"))
    .filter((l) => options.withInfo === true || !l.startsWith("target_info"))
    .sort();

test("the SDK's JSON exporter: names, units, _total, labels, the grouping key and target_info", async () => {
  const mp = provider({
    service: "nightly-report",
    instance: "runner-7",
    exporter: new JsonExporter({ url: `${base}/v1/metrics` }),
  });
  try {
    const meter = mp.getMeter("report-lib", "1.2.3");
    meter
      .createCounter("rows.processed", { unit: "{row}", description: "Rows done." })
      .add(42, { "table.name": "orders" });
    meter.createHistogram("step.duration", { unit: "ms" }).record(120, { step: "load" });
    meter.createUpDownCounter("queue.depth").add(3);
    meter.createGauge("memory.used", { unit: "By" }).record(1024);
    await mp.forceFlush();
  } finally {
    await mp.shutdown();
  }
  const scope = 'otel_scope_name="report-lib",otel_scope_version="1.2.3"';
  const g = 'instance="runner-7",job="nightly-report"';
  const got = await lines("nightly-report", { withInfo: true });
  assert.ok(got.includes(`rows_processed_total{${g},${scope},table_name="orders"} 42`), got.join("\n"));
  assert.ok(got.includes(`queue_depth{${g},${scope}} 3`), got.join("\n"));
  assert.ok(got.includes(`memory_used_bytes{${g},${scope}} 1024`), got.join("\n"));
  assert.ok(got.includes(`step_duration_milliseconds_count{${g},${scope},step="load"} 1`), got.join("\n"));
  assert.ok(got.includes(`step_duration_milliseconds_sum{${g},${scope},step="load"} 120`), got.join("\n"));
  assert.ok(
    got.includes(`step_duration_milliseconds_bucket{${g},${scope},step="load",le="250"} 1`),
    got.join("\n"),
  );
  assert.ok(
    got.includes(`step_duration_milliseconds_bucket{${g},${scope},step="load",le="100"} 0`),
    got.join("\n"),
  );
  assert.ok(got.includes(`target_info{deployment_environment_name="test",${g}} 1`), got.join("\n"));
  const text = await (await fetch(`${base}/metrics`)).text();
  assert.match(text, /^# HELP rows_processed_total Rows done\.$/m);
  assert.match(text, /^# TYPE rows_processed_total counter$/m);
  assert.match(text, /^# TYPE queue_depth gauge$/m);
});

test("delta temporality from two runs of a batch job (protobuf exporter) adds up; cumulative replaces", async () => {
  const run = async (n: number, temporality: AggregationTemporalityPreference) => {
    const mp = provider({
      service: temporality === AggregationTemporalityPreference.DELTA ? "delta-job" : "cumulative-job",
      exporter: new ProtoExporter({ url: `${base}/v1/metrics`, temporalityPreference: temporality }),
    });
    try {
      const c = mp.getMeter("m").createCounter("items");
      c.add(n);
      await mp.forceFlush();
      c.add(n);
      await mp.forceFlush();
    } finally {
      await mp.shutdown();
    }
  };
  await run(5, AggregationTemporalityPreference.DELTA);
  await run(2, AggregationTemporalityPreference.DELTA);
  assert.deepEqual(await lines("delta-job"), [
    'items_total{instance="",job="delta-job",otel_scope_name="m"} 14',
  ]);
  await run(5, AggregationTemporalityPreference.CUMULATIVE);
  await run(2, AggregationTemporalityPreference.CUMULATIVE);
  assert.deepEqual(await lines("cumulative-job"), [
    'items_total{instance="",job="cumulative-job",otel_scope_name="m"} 4',
  ]);
});

test("an exponential histogram arrives as a native histogram (protobuf scrape)", async () => {
  const mp = provider({ service: "sizes", exporter: new ProtoExporter({ url: `${base}/v1/metrics` }) });
  try {
    const h = mp.getMeter("m").createHistogram("job.payload.size", { unit: "By" });
    for (const v of [1, 3, 3, 100]) h.record(v);
    await mp.forceFlush();
  } finally {
    await mp.shutdown();
  }
  const body = Buffer.from(
    await (await fetch(`${base}/metrics`, { headers: { Accept: DELIMITED } })).arrayBuffer(),
  );
  const f = splitDelimited(body)
    .map((m) => family.toObject(family.decode(m), { longs: Number, enums: String, defaults: false }))
    .find((x) => x.name === "job_payload_size_bytes") as
    | { type: string; metric: { histogram: Record<string, unknown> }[] }
    | undefined;
  assert.equal(f?.type, "HISTOGRAM");
  const h = f?.metric[0]?.histogram ?? {};
  assert.equal(h.sampleCount, 4);
  assert.equal(h.sampleSum, 107);
  assert.equal(typeof h.schema, "number");
  assert.ok((h.schema as number) <= 8);
  const deltas = (h.positiveDelta as number[]) ?? [];
  let running = 0;
  const total = deltas.reduce((n, d) => {
    running += d;
    return n + running;
  }, 0);
  assert.equal(total + Number(h.zeroCount ?? 0), 4);
});

test("bad exports: 415 for another media type, 400 with a google.rpc.Status for a body that does not decode, partial success counted", async () => {
  const before = await (await fetch(`${base}/api/v1/metrics`)).text();
  const wrongType = await fetch(`${base}/v1/metrics`, {
    method: "POST",
    body: "{}",
    headers: { "Content-Type": "text/plain" },
  });
  assert.equal(wrongType.status, 415);
  assert.equal(
    await wrongType.text(),
    'unsupported Content-Type "text/plain": OTLP/HTTP takes application/x-protobuf or application/json\n',
  );
  const garbage = await fetch(`${base}/v1/metrics`, {
    method: "POST",
    body: "{not json",
    headers: { "Content-Type": "application/json" },
  });
  assert.equal(garbage.status, 400);
  const status = (await garbage.json()) as { code: number; message: string };
  assert.equal(status.code, 3);
  assert.match(status.message, /^cannot decode the OTLP json body: /);
  const badProto = await fetch(`${base}/v1/metrics`, {
    method: "POST",
    body: Buffer.from([0x0a, 0xff, 0x01]),
    headers: { "Content-Type": "application/x-protobuf" },
  });
  assert.equal(badProto.status, 400);
  assert.equal(badProto.headers.get("content-type"), "application/x-protobuf");
  assert.equal((await fetch(`${base}/v1/metrics`)).status, 405);
  assert.equal(await (await fetch(`${base}/api/v1/metrics`)).text(), before, "nothing stored");

  const partial = await fetch(`${base}/v1/metrics`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      resourceMetrics: [
        {
          resource: { attributes: [] },
          scopeMetrics: [
            { metrics: [{ name: "x", gauge: { dataPoints: [{ asDouble: 1 }, { asDouble: 2 }] } }] },
          ],
        },
        {
          resource: { attributes: [{ key: "service.name", value: { stringValue: "partial" } }] },
          scopeMetrics: [{ metrics: [{ name: "ok", gauge: { dataPoints: [{ asInt: "7" }] } }] }],
        },
      ],
    }),
  });
  assert.equal(partial.status, 200);
  assert.deepEqual(await partial.json(), {
    partialSuccess: {
      rejectedDataPoints: "2",
      errorMessage: "a resource without service.name: its 2 data points have no job to be grouped under",
    },
  });
  assert.deepEqual(await lines("partial"), ['ok{instance="",job="partial"} 7']);
});

test("gzip bodies are read; --push.max-body-bytes bounds them (413 with a google.rpc.Status), an unknown encoding is 400", async () => {
  const body = JSON.stringify({
    resourceMetrics: [
      {
        resource: { attributes: [{ key: "service.name", value: { stringValue: "zipped" } }] },
        scopeMetrics: [{ metrics: [{ name: "zipped.value", gauge: { dataPoints: [{ asDouble: 2.5 }] } }] }],
      },
    ],
  });
  const headers = { "Content-Type": "application/json", "Content-Encoding": "gzip" };
  const ok = await fetch(`${base}/v1/metrics`, { method: "POST", headers, body: gzipSync(body) });
  assert.equal(ok.status, 200);
  assert.deepEqual(await lines("zipped"), ['zipped_value{instance="",job="zipped"} 2.5']);
  const limited = (await startGateway(["--push.max-body-bytes=200"])).base;
  // Small on the wire, larger than the limit once inflated.
  const padded = JSON.stringify({ ...JSON.parse(body), padding: "x".repeat(500) });
  const tooLarge = await fetch(`${limited}/v1/metrics`, { method: "POST", headers, body: gzipSync(padded) });
  assert.equal(tooLarge.status, 413);
  assert.deepEqual(await tooLarge.json(), {
    code: 8,
    message:
      "OTLP body exceeds the limit of 200 bytes set by --push.max-body-bytes; export in smaller batches or raise the limit",
  });
  const unknown = await fetch(`${base}/v1/metrics`, {
    method: "POST",
    headers: { ...headers, "Content-Encoding": "br" },
    body,
  });
  assert.equal(unknown.status, 400);
  assert.deepEqual(await unknown.json(), {
    code: 3,
    message: 'unsupported Content-Encoding "br": OTLP/HTTP takes gzip or none',
  });
});
