import assert from "node:assert/strict";
import { test } from "node:test";
import { bodyText, recordingContext, request } from "../../test/support/recording-context.js";
import { parseDelimitedProtobuf } from "../exposition/parse-protobuf.js";
import { parseText } from "../exposition/parse-text.js";
import { renderFamily } from "../exposition/rendered-family.js";
import { handleRequest } from "./routes.js";

test("apiMetrics() lists each group with its families and the two push-time gauges, as upstream's JSON", async () => {
  const { ctx, store } = recordingContext();
  const [family] = parseText('# HELP m A gauge.\n# TYPE m gauge\nm{instance="",job="j"} 1.5\n').map(
    renderFamily,
  );
  assert.ok(family);
  store.storedGroups = [
    {
      labels: { job: "j" },
      families: new Map([["m", family]]),
      pushedAt: new Map([["m", Date.parse("2026-01-02T03:04:05.678Z")]]),
      pushTime: Date.parse("2026-01-02T03:04:05.678Z") / 1000,
      failureTime: 0,
    },
  ];
  const response = await handleRequest(request("GET", "/api/v1/metrics"), ctx);
  assert.equal(response.headers["Content-Type"], "application/json");
  assert.equal(response.headers["Access-Control-Allow-Origin"], "*");
  const json = JSON.parse(bodyText(response.body)) as { status: string; data: Record<string, unknown>[] };
  assert.equal(json.status, "success");
  assert.deepEqual(json.data[0]?.m, {
    time_stamp: "2026-01-02T03:04:05.678Z",
    type: "GAUGE",
    help: "A gauge.",
    metrics: [{ labels: { instance: "", job: "j" }, value: "1.5" }],
  });
  assert.deepEqual(json.data[0]?.labels, { job: "j" });
  assert.equal(json.data[0]?.last_push_successful, true);
  assert.deepEqual((json.data[0]?.push_time_seconds as { metrics: unknown[] } | undefined)?.metrics, [
    { labels: { instance: "", job: "j" }, value: "1.767323045678e+09" },
  ]);
});

test("apiStatus() wraps the status in upstream's envelope; OPTIONS is the CORS preflight without a body", async () => {
  const { ctx } = recordingContext();
  const status = await handleRequest(request("GET", "/api/v1/status"), ctx);
  assert.equal(
    bodyText(status.body),
    '{"status":"success","data":{"flags":{"web.telemetry-path":"/metrics"}}}',
  );
  const options = await handleRequest(request("OPTIONS", "/api/v1/metrics"), ctx);
  assert.equal(options.status, 200);
  assert.equal(options.body, "");
  assert.equal(options.headers["Content-Type"], undefined);
  assert.equal(options.headers["Access-Control-Allow-Methods"], "GET, POST, DELETE, OPTIONS");
});

test("apiMetrics() writes histograms and summaries as upstream 1.11: integer counts, native buckets as lists", async () => {
  const { ctx, store } = recordingContext();
  const native = {
    sampleCount: "8",
    sampleSum: 12.5,
    bucket: [{ cumulativeCount: "2", upperBound: 1 }],
    schema: 3,
    zeroThreshold: 1e-128,
    zeroCount: "1",
    negativeSpan: [{ offset: -2, length: 1 }],
    negativeDelta: ["1"],
    positiveSpan: [
      { offset: 0, length: 2 },
      { offset: 3, length: 1 },
    ],
    positiveDelta: ["2", "-1", "2"],
  };
  const labels: [string, string][] = [
    ["instance", ""],
    ["job", "j"],
  ];
  const families = [
    renderFamily({
      name: "native",
      help: undefined,
      type: "histogram",
      metrics: [{ labels, buckets: [[1, 2]], sum: 12.5, count: 8, protoValue: JSON.stringify(native) }],
    }),
    ...parseText(
      [
        "# TYPE classic histogram",
        'classic_bucket{instance="",job="j",le="0.5"} 1000000',
        'classic_bucket{instance="",job="j",le="+Inf"} 2000000',
        'classic_sum{instance="",job="j"} 1e+06',
        'classic_count{instance="",job="j"} 2000000',
        "# TYPE s summary",
        's{instance="",job="j",quantile="0.99"} 1.5',
        's_sum{instance="",job="j"} 3',
        's_count{instance="",job="j"} 1234567',
        "",
      ].join("\n"),
    ).map(renderFamily),
  ];
  store.storedGroups = [
    {
      labels: { job: "j" },
      families: new Map(families.map((f) => [f.name, f])),
      pushedAt: new Map(),
      pushTime: 1,
      failureTime: 0,
    },
  ];
  const response = await handleRequest(request("GET", "/api/v1/metrics"), ctx);
  const json = JSON.parse(bodyText(response.body)) as { data: Record<string, { metrics: unknown[] }>[] };
  const group = json.data[0];
  assert.deepEqual(group?.native?.metrics, [
    {
      buckets: [
        [1, "-0.8408964152537144", "-0.7711054127039704", "1"],
        [3, "-1e-128", "1e-128", "1"],
        [0, "0.9170040432046711", "1", "2"],
        [0, "1", "1.0905077326652577", "1"],
        [0, "1.414213562373095", "1.5422108254079407", "3"],
      ],
      count: "8",
      labels: { instance: "", job: "j" },
      sum: "12.5",
    },
  ]);
  assert.deepEqual(group?.classic?.metrics, [
    {
      buckets: { "+Inf": "2000000", "0.5": "1000000" },
      count: "2000000",
      labels: { instance: "", job: "j" },
      sum: "1e+06",
    },
  ]);
  assert.deepEqual(group?.s?.metrics, [
    { count: "1234567", labels: { instance: "", job: "j" }, quantiles: { "0.99": "1.5" }, sum: "3" },
  ]);
  // Go encodes these maps with sorted keys.
  assert.match(bodyText(response.body), /\{"buckets":\[\[1,"-0\.8408964152537144"/);
});

test("apiMetrics() lists a family named __proto__ and sorts a group's keys as Go's map (found by push-fuzz.peers.test.ts)", async () => {
  const { ctx, store } = recordingContext();
  const families = parseText('__proto__{instance="",job="j"} 1\nzz{instance="",job="j"} 2\n').map(
    renderFamily,
  );
  store.storedGroups = [
    {
      labels: { job: "j" },
      families: new Map(families.map((f) => [f.name, f])),
      pushedAt: new Map(),
      pushTime: 1,
      failureTime: 0,
    },
  ];
  const body = bodyText((await handleRequest(request("GET", "/api/v1/metrics"), ctx)).body);
  // As a plain object's key, __proto__ set the entry's prototype: the family was missing, and the prototype (a Go
  // struct) made the encoder keep the entry's keys unsorted.
  const keys = [...body.matchAll(/"([^"]+)":\{"time_stamp"/g)].map((m) => m[1]);
  assert.deepEqual(keys, ["__proto__", "push_failure_time_seconds", "push_time_seconds", "zz"]);
  assert.match(
    body,
    /^\{"status":"success","data":\[\{"__proto__":\{.*\},"labels":\{"job":"j"\},"last_push_successful":true,/,
  );
});

test("apiMetrics() leaves out a help sent empty, as Go's `help,omitempty`", async () => {
  const { ctx, store } = recordingContext();
  const [family] = parseText('e{instance="",job="j"} 1\n').map((f) => renderFamily({ ...f, help: "" }));
  assert.ok(family);
  store.storedGroups = [
    {
      labels: { job: "j" },
      families: new Map([["e", family]]),
      pushedAt: new Map(),
      pushTime: 1,
      failureTime: 0,
    },
  ];
  const body = bodyText((await handleRequest(request("GET", "/api/v1/metrics"), ctx)).body);
  assert.match(body, /"e":\{"time_stamp":"[^"]*","type":"UNTYPED","metrics":/);
});

test("apiMetrics() prints counts past 2^53 with Go's exact uint64 digits (found by push-fuzz.peers.test.ts)", async () => {
  const { ctx, store } = recordingContext();
  const families = parseText(
    '# TYPE s summary\ns_count{instance="",job="j"} -1\n# TYPE h histogram\nh_bucket{instance="",job="j",le="+Inf"} 1\nh_count{instance="",job="j"} NaN\n',
  ).map(renderFamily);
  store.storedGroups = [
    {
      labels: { job: "j" },
      families: new Map(families.map((f) => [f.name, f])),
      pushedAt: new Map(),
      pushTime: 1,
      failureTime: 0,
    },
  ];
  const body = bodyText((await handleRequest(request("GET", "/api/v1/metrics"), ctx)).body);
  // As 1.5.1 answers the same push: uint64(-1.0) and uint64(NaN) on amd64, read back from the stored lines as is.
  assert.match(body, /"s":\{[^\]]*"count":"18446744073709551615"/);
  assert.match(body, /"h":\{[^\]]*"count":"9223372036854775808"/);
});

test("apiMetrics() lists a protobuf histogram sent without buckets with none, as 1.5.1 (the scrape adds +Inf)", async () => {
  const { ctx, store } = recordingContext();
  // MetricFamily {name: "nb", type: HISTOGRAM, metric: [{label: [job="j", instance=""], histogram: {sample_count: 4}}]}.
  const label = (n: string, v: string) => [
    0x0a,
    2 + n.length + 2 + v.length,
    0x0a,
    n.length,
    ...Buffer.from(n),
    0x12,
    v.length,
    ...Buffer.from(v),
  ];
  const metric = [...label("instance", ""), ...label("job", "j"), 0x3a, 0x02, 0x08, 0x04];
  const family = [0x0a, 0x02, ...Buffer.from("nb"), 0x18, 0x04, 0x22, metric.length, ...metric];
  const families = (await parseDelimitedProtobuf(Buffer.from([family.length, ...family]))).map(renderFamily);
  store.storedGroups = [
    {
      labels: { job: "j" },
      families: new Map(families.map((f) => [f.name, f])),
      pushedAt: new Map(),
      pushTime: 1,
      failureTime: 0,
    },
  ];
  const body = bodyText((await handleRequest(request("GET", "/api/v1/metrics"), ctx)).body);
  assert.match(body, /"nb":\{[^\]]*"metrics":\[\{"buckets":\{\},"count":"4",/);
});
