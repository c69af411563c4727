import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { renderMetric } from "../exposition/render-metric.js";
import { decodeExportRequest, encodeExportResponse } from "./otlp-codec.js";
import { translateExport } from "./otlp-groups.js";

const EXAMPLE = readFileSync(new URL("../../../test/fixtures/otlp/metrics.json", import.meta.url));

test("opentelemetry-proto's example export becomes one group with Prometheus names and labels", () => {
  const { groups, rejected, errors } = translateExport(decodeExportRequest(EXAMPLE, "json"));
  assert.deepEqual([rejected, errors], [0, []]);
  assert.equal(groups.length, 1);
  const [group] = groups;
  assert.ok(group);
  assert.deepEqual(group.labels, { job: "my.service" });
  const show = (families: typeof group.replace) =>
    families.map((f) => [f.name, f.type, f.help, f.metrics.map((m) => renderMetric(f, m)).join("\n")]);
  const scope = 'otel_scope_name="my.library",otel_scope_version="1.0.0"';
  assert.deepEqual(show(group.replace), [
    ["my_gauge_ratio", "gauge", "I`m a Gauge", `my_gauge_ratio{my_gauge_attr="some value",${scope}} 10`],
  ]);
  // Both are delta temporality: added into the group.
  assert.deepEqual(show(group.add), [
    [
      "my_counter_total",
      "counter",
      "I`m a Counter",
      `my_counter_total{my_counter_attr="some value",${scope}} 5`,
    ],
    [
      "my_histogram",
      "histogram",
      "I`m a Histogram",
      [
        `my_histogram_bucket{my_histogram_attr="some value",${scope},le="1"} 1`,
        `my_histogram_bucket{my_histogram_attr="some value",${scope},le="+Inf"} 3`,
        `my_histogram_sum{my_histogram_attr="some value",${scope}} 3`,
        `my_histogram_count{my_histogram_attr="some value",${scope}} 3`,
      ].join("\n"),
    ],
  ]);
});

test("resource attributes: namespace/name is the job, the instance id the instance, the rest target_info", () => {
  const body = {
    resource_metrics: [
      {
        resource: {
          attributes: [
            { key: "service.name", value: { stringValue: "api" } },
            { key: "service.namespace", value: { stringValue: "shop" } },
            { key: "service.instance.id", value: { stringValue: "i-1" } },
            { key: "host.name", value: { stringValue: "h" } },
            { key: "process.pid", value: { intValue: "42" } },
          ],
        },
        scope_metrics: [
          {
            metrics: [
              {
                name: "queue.depth",
                unit: "{item}",
                sum: {
                  aggregation_temporality: "AGGREGATION_TEMPORALITY_CUMULATIVE",
                  is_monotonic: false,
                  data_points: [{ as_int: "7" }],
                },
              },
            ],
          },
        ],
      },
    ],
  };
  const { groups } = translateExport(decodeExportRequest(Buffer.from(JSON.stringify(body)), "json"));
  const [group] = groups;
  assert.deepEqual(group?.labels, { job: "shop/api", instance: "i-1" });
  assert.deepEqual(
    group?.replace.map((f) => [f.name, f.type, f.metrics.map((m) => [m.labels, m.value])]),
    [
      ["queue_depth", "gauge", [[[], 7]]],
      [
        "target_info",
        "gauge",
        [
          [
            [
              ["host_name", "h"],
              ["process_pid", "42"],
            ],
            1,
          ],
        ],
      ],
    ],
  );
});

test("exponential histograms become native histograms, indexes shifted by one, fine scales coarsened to 8", () => {
  const body = {
    resourceMetrics: [
      {
        resource: { attributes: [{ key: "service.name", value: { stringValue: "s" } }] },
        scopeMetrics: [
          {
            metrics: [
              {
                name: "latency",
                unit: "s",
                exponentialHistogram: {
                  aggregationTemporality: 2,
                  dataPoints: [
                    {
                      count: "6",
                      sum: 9,
                      scale: 0,
                      zeroCount: "1",
                      positive: { offset: 0, bucketCounts: ["2", "3"] },
                    },
                    {
                      count: "2",
                      sum: 1,
                      scale: 9,
                      positive: { offset: 3, bucketCounts: ["1", "1"] },
                      attributes: [{ key: "fine", value: { boolValue: true } }],
                    },
                    {
                      count: "1",
                      sum: 1,
                      scale: -5,
                      positive: { offset: 0, bucketCounts: ["1"] },
                      attributes: [{ key: "coarse", value: { boolValue: true } }],
                    },
                  ],
                },
              },
            ],
          },
        ],
      },
    ],
  };
  const { groups, rejected, errors } = translateExport(
    decodeExportRequest(Buffer.from(JSON.stringify(body)), "json"),
  );
  assert.equal(rejected, 1);
  assert.deepEqual(errors, [
    "latency: exponential histogram scale -5 is below -4, the coarsest native histogram schema",
  ]);
  const family = groups[0]?.replace[0];
  assert.equal(family?.name, "latency_seconds");
  const [a, b] = (family?.metrics ?? []).map((m) => JSON.parse(m.protoValue ?? "{}"));
  // OTLP bucket 0 at scale 0 is (1, 2]: Prometheus' bucket 1.
  assert.deepEqual(a, {
    sampleCount: "6",
    sampleSum: 9,
    schema: 0,
    zeroThreshold: 0,
    zeroCount: "1",
    positiveSpan: [{ offset: 1, length: 2 }],
    positiveDelta: ["2", "1"],
  });
  // Scale 9 indexes 3 and 4 are index 1 and 2 at scale 8 (3>>1, 4>>1), then +1.
  assert.deepEqual([b.schema, b.positiveSpan, b.positiveDelta], [8, [{ offset: 2, length: 2 }], ["1", "0"]]);
});

test("the response carries partial success only when something was rejected", () => {
  assert.equal(encodeExportResponse({ rejected: 0, message: "" }, "json"), "{}");
  assert.equal(
    encodeExportResponse({ rejected: 2, message: "x" }, "json"),
    '{"partialSuccess":{"rejectedDataPoints":"2","errorMessage":"x"}}',
  );
  assert.equal((encodeExportResponse({ rejected: 0, message: "" }, "protobuf") as Buffer).length, 0);
  assert.throws(() => decodeExportRequest(Buffer.from("[1]"), "json"), {
    name: "ParseError",
    message: "cannot decode the OTLP json body: the body is not a JSON object",
  });
  assert.throws(() => decodeExportRequest(Buffer.from([0x0a, 0x05, 0x01]), "protobuf"), {
    name: "ParseError",
  });
});
