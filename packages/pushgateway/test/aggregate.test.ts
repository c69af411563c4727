import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { HISTOGRAM, nativePushBody, scrapeProtobuf } from "./support/native-push.js";
import { startGateway, stopAll } from "./support/processes.js";
import { DELIMITED } from "./support/scrape-fixtures.js";

after(stopAll);

let base = "";
let sumBase = "";

before(async () => {
  base = (await startGateway()).base;
  sumBase = (await startGateway(["--aggregate.gauges=sum"])).base;
});

const send = (method: string, url: string, body: string | Buffer, headers: Record<string, string> = {}) =>
  fetch(url, { method, body, headers });
/** The group's lines of a text scrape, `push_*` gauges left out, sorted. */
const groupLines = async (b: string, job: string) =>
  (await (await fetch(`${b}/metrics`)).text())
    .split("\n")
    .filter((l) => l.includes(`job="${job}"`) && !l.startsWith("push_"))
    .sort();

test("POST and PUT under /aggregate add counters, histograms and summaries' count and sum; gauges take the latest", async () => {
  const url = `${base}/aggregate/metrics/job/agg/instance/i1`;
  const first = [
    "# TYPE done_total counter",
    'done_total{kind="a"} 2',
    'done_total{kind="b"} 1',
    "# TYPE temp gauge",
    "temp 20",
    "# TYPE lat histogram",
    'lat_bucket{le="0.5"} 1',
    'lat_bucket{le="+Inf"} 3',
    "lat_sum 2.5",
    "lat_count 3",
    "# TYPE rpc summary",
    'rpc{quantile="0.9"} 0.2',
    "rpc_sum 1",
    "rpc_count 4",
    "",
  ].join("\n");
  assert.equal((await send("POST", url, first)).status, 200);
  const second = [
    "# TYPE done_total counter",
    'done_total{kind="a"} 3',
    'done_total{kind="c"} 5',
    "# TYPE temp gauge",
    "temp 18",
    "# TYPE lat histogram",
    'lat_bucket{le="0.5"} 2',
    'lat_bucket{le="+Inf"} 2',
    "lat_sum 0.5",
    "lat_count 2",
    "# TYPE rpc summary",
    'rpc{quantile="0.9"} 0.4',
    "rpc_sum 2",
    "rpc_count 1",
    "",
  ].join("\n");
  assert.equal((await send("PUT", url, second)).status, 200);
  const l = 'instance="i1",job="agg"';
  assert.deepEqual(await groupLines(base, "agg"), [
    `done_total{${l},kind="a"} 5`,
    `done_total{${l},kind="b"} 1`,
    `done_total{${l},kind="c"} 5`,
    `lat_bucket{${l},le="+Inf"} 5`,
    `lat_bucket{${l},le="0.5"} 3`,
    `lat_count{${l}} 5`,
    `lat_sum{${l}} 3`,
    `rpc_count{${l}} 5`,
    `rpc_sum{${l}} 3`,
    `rpc{${l},quantile="0.9"} 0.4`,
    `temp{${l}} 18`,
  ]);
  const scrape = await (await fetch(`${base}/metrics`)).text();
  assert.match(scrape, /^push_time_seconds\{instance="i1",job="agg"\} \d\.\d+e\+09$/m);
});

test("a type or bucket layout that does not fit, or a body that does not parse, is 400 and changes nothing", async () => {
  const url = `${base}/aggregate/metrics/job/strict`;
  const held =
    '# TYPE c counter\nc 1\n# TYPE h histogram\nh_bucket{le="1"} 1\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n';
  assert.equal((await send("POST", url, held)).status, 200);
  const before = await (await fetch(`${base}/api/v1/metrics`)).text();
  const cases: [string, string][] = [
    [
      "# TYPE c gauge\nc 1\n",
      "cannot add c: the group holds it as a counter, the push has it as a gauge; push it to a new group or DELETE the aggregated group first\n",
    ],
    [
      '# TYPE h histogram\nh_bucket{le="2"} 1\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n',
      'cannot add h{instance="",job="strict"}: bucket layout differs (group holds le=1,+Inf, push has le=2,+Inf)\n',
    ],
    // The first family fits, the second does not: neither is applied.
    [
      "# TYPE c counter\nc 5\n# TYPE h gauge\nh 1\n",
      "cannot add h: the group holds it as a histogram, the push has it as a gauge; push it to a new group or DELETE the aggregated group first\n",
    ],
    ["c 1 2 3\n", 'text format parsing error in line 1: spurious string after timestamp: " 3"\n'],
  ];
  for (const [body, message] of cases) {
    const r = await send("POST", url, body);
    assert.equal(r.status, 400, body);
    assert.equal(await r.text(), message);
  }
  const withTimestamp = await send("POST", url, "c 1 1700000000000\n");
  assert.equal(withTimestamp.status, 400);
  assert.equal(
    await withTimestamp.text(),
    "pushed metrics are invalid or inconsistent with existing metrics: pushed metrics must not have timestamps\n",
  );
  const afterwards = await (await fetch(`${base}/api/v1/metrics`)).text();
  const strip = (json: string) =>
    (JSON.parse(json) as { data: { labels: { job: string } }[] }).data
      .filter((g) => g.labels.job === "strict")
      .map((g) => {
        const {
          push_failure_time_seconds: _f,
          push_time_seconds: _p,
          last_push_successful: _s,
          ...rest
        } = g as Record<string, unknown>;
        return rest;
      });
  assert.deepEqual(strip(afterwards), strip(before));
});

test("DELETE on the aggregate URL resets the group", async () => {
  const url = `${base}/aggregate/metrics/job/reset`;
  assert.equal((await send("POST", url, "# TYPE n counter\nn 4\n")).status, 200);
  assert.equal((await fetch(url, { method: "DELETE" })).status, 202);
  assert.deepEqual(await groupLines(base, "reset"), []);
  assert.equal((await send("POST", url, "# TYPE n counter\nn 1\n")).status, 200);
  assert.deepEqual(await groupLines(base, "reset"), ['n{instance="",job="reset"} 1']);
});

test("--aggregate.gauges=sum adds gauges too", async () => {
  const url = `${sumBase}/aggregate/metrics/job/g`;
  for (const v of [1.5, 2, -0.5])
    assert.equal((await send("POST", url, `# TYPE inflight gauge\ninflight ${v}\n`)).status, 200);
  assert.deepEqual(await groupLines(sumBase, "g"), ['inflight{instance="",job="g"} 3']);
});

test("20 concurrent pushers lose no update", async () => {
  const url = `${base}/aggregate/metrics/job/concurrent`;
  const pusher = async (n: number) => {
    for (let i = 0; i < 10; i++) {
      const r = await send(
        "POST",
        url,
        `# TYPE hits_total counter\nhits_total 1\nhits_total{pusher="p${n}"} 1\n`,
      );
      assert.equal(r.status, 200);
    }
  };
  await Promise.all(Array.from({ length: 20 }, (_, n) => pusher(n)));
  const lines = await groupLines(base, "concurrent");
  assert.ok(lines.includes('hits_total{instance="",job="concurrent"} 200'), lines.join("\n"));
  assert.equal(lines.filter((l) => / 10$/.test(l)).length, 20);
});

test("native histograms pushed as protobuf add bucket by bucket", async () => {
  const url = `${base}/aggregate/metrics/job/native`;
  const headers = { "Content-Type": DELIMITED };
  for (let i = 0; i < 2; i++) assert.equal((await send("POST", url, nativePushBody(), headers)).status, 200);
  const scraped = await scrapeProtobuf(base);
  const h = scraped.rpc_seconds?.histogram as Record<string, unknown>;
  assert.equal(h.sampleCount, 2 * HISTOGRAM.sampleCount);
  assert.equal(h.sampleSum, 2 * HISTOGRAM.sampleSum);
  assert.equal(h.zeroCount, 2 * HISTOGRAM.zeroCount);
  assert.equal(h.schema, HISTOGRAM.schema);
  assert.deepEqual(h.negativeSpan, HISTOGRAM.negativeSpan);
  assert.deepEqual(h.negativeDelta, [2]);
  // Absolute counts 2, 1, 3 at indexes 0, 1, 5 doubled: 4, 2, 6.
  assert.deepEqual(h.positiveSpan, HISTOGRAM.positiveSpan);
  assert.deepEqual(h.positiveDelta, [4, -2, 4]);
  assert.deepEqual(
    (h.bucket as { cumulativeCount: number; upperBound: number }[]).map((b) => [
      b.upperBound,
      b.cumulativeCount,
    ]),
    [
      [1, 4],
      [5, 10],
    ],
  );
  assert.deepEqual(scraped.requests_total?.counter, { value: 84 });
});
