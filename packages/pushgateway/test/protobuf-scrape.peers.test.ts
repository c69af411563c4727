// Protobuf exposition on scrape, side by side with Debian's prometheus-pushgateway 1.5.1 (the peer
// suite; ours alone is protobuf-scrape.test.ts): the format each Accept header negotiates, and the delimited, text and
// compact-text bodies of the same pushes. Masked as not behaviour: the gateway's own families (a Node process is
// not a Go one) and push times. Our Content-Type adds current upstream's `; escaping=underscores` (README).
import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders, request } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { startPeerGateway } from "./support/peers.js";
import { startGateway, stopAll } from "./support/processes.js";
import { type QueryResult, type StartedPrometheus, startPrometheus } from "./support/prometheus.js";
import {
  comparable,
  comparableText,
  DELIMITED,
  decode,
  isPushTime,
  MF,
  OWN,
  PUSHES,
  type Side,
  send,
  splitDelimited,
} from "./support/scrape-fixtures.js";

let peer: Side;
let ours: Side;

before(async () => {
  [peer, ours] = await Promise.all([startPeerGateway(), startGateway()]);
  for (const side of [peer, ours]) {
    for (const p of PUSHES) {
      const answer = await send(side, "PUT", p.path, p.headers, p.body);
      assert.equal(answer.status, 200, `${side.base}${p.path}: ${answer.body.toString()}`);
    }
  }
});

after(stopAll);

describe("scrape format negotiation beside 1.5.1", () => {
  const ACCEPTS: (string | undefined)[] = [
    undefined,
    "",
    "*/*",
    "*",
    "text/plain",
    "text/plain;version=0.0.4",
    "text/plain;version=0.0.5",
    DELIMITED,
    `${MF};encoding=text`,
    `${MF};encoding=compact-text`,
    "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited",
    ` ${DELIMITED}`,
    `${MF};encoding=json`,
    "application/vnd.google.protobuf;encoding=delimited",
    "application/vnd.google.protobuf;proto=io.prometheus.client.metricfamily;encoding=delimited",
    "Application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited",
    "application/openmetrics-text;version=1.0.0",
    `text/plain;version=0.0.4;q=0.5,${DELIMITED};q=0.7`,
    `text/plain;version=0.0.4,${DELIMITED};q=0.7`,
    `${DELIMITED};q=0.7,text/plain;version=0.0.4;q=0.3,*/*;q=0.1`,
    `${DELIMITED},text/plain`,
    `text/plain,${DELIMITED}`,
    `text/html,${MF};encoding=compact-text;q=0.9`,
    // goautoneg's Less puts any concrete type before `*/*`, whatever the q-values.
    `*/*;q=1,${MF};encoding=text;q=0.1`,
    // q=0 does not exclude a type, an unreadable q is 0.
    `${DELIMITED};q=0`,
    `${DELIMITED};q=abc,text/plain;version=9;q=0.5`,
    `${DELIMITED};q=0.5,${MF};encoding=text;q=0.6`,
    `${DELIMITED};q=0.5,${MF};encoding=compact-text;q=0.50001`,
    `text/plain;version=0.0.4;q=0.2,${DELIMITED};q=1e-1,*/*;q=0.3`,
  ];
  for (const accept of ACCEPTS) {
    test(`Accept: ${JSON.stringify(accept)}`, async () => {
      const headers = accept === undefined ? {} : { Accept: accept };
      const [p, o] = await Promise.all([
        send(peer, "GET", "/metrics", headers),
        send(ours, "GET", "/metrics", headers),
      ]);
      assert.equal(p.status, 200);
      assert.equal(o.status, 200);
      assert.equal(o.contentType, `${p.contentType}; escaping=underscores`);
    });
  }
});

describe("protobuf exposition beside 1.5.1", () => {
  test("delimited: the same families, series, labels, fields and order", async () => {
    const headers = { Accept: DELIMITED };
    const [p, o] = await Promise.all([
      send(peer, "GET", "/metrics", headers),
      send(ours, "GET", "/metrics", headers),
    ]);
    assert.equal(
      p.contentType,
      "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited",
    );
    const decoded = comparable(o.body);
    assert.deepEqual(decoded, comparable(p.body));
    assert.deepEqual(
      decoded.map((f) => f.name),
      [
        "big",
        "c",
        "g",
        "h",
        "h2",
        "mid",
        "neg",
        "pb_gauge",
        "push_failure_time_seconds",
        "push_time_seconds",
        "s",
        "small",
        "sp",
        "u",
      ],
    );
    // Byte for byte for the pushed families: no field set that 1.5.1 leaves unset, fields in Go's order.
    const bytes = (body: Buffer) =>
      splitDelimited(body).filter((m) => {
        const name = decode(m).name;
        return !OWN.test(name) && !isPushTime(name);
      });
    assert.deepEqual(bytes(o.body), bytes(p.body));
  });

  for (const [encoding, compact] of [
    ["text", false],
    ["compact-text", true],
  ] as const) {
    test(`encoding=${encoding}: the same text`, async () => {
      const headers = { Accept: `${MF};encoding=${encoding}` };
      const [p, o] = await Promise.all([
        send(peer, "GET", "/metrics", headers),
        send(ours, "GET", "/metrics", headers),
      ]);
      assert.equal(o.contentType, `${p.contentType}; escaping=underscores`);
      assert.equal(comparableText(o.body, compact), comparableText(p.body, compact));
    });
  }
});

describe("where we differ from 1.5.1", () => {
  test("(no longer a difference) a histogram pushed as text without +Inf: its buckets as pushed", async () => {
    const body = '# TYPE hn histogram\nhn_bucket{le="1"} 1\nhn_sum 3\nhn_count 4\n';
    for (const side of [peer, ours])
      assert.equal((await send(side, "PUT", "/metrics/job/noinf", {}, body)).status, 200);
    try {
      const buckets = async (side: Side) => {
        const answer = await send(side, "GET", "/metrics", { Accept: DELIMITED });
        const hn = splitDelimited(answer.body)
          .map(decode)
          .find((f) => f.name === "hn");
        return hn?.metric?.[0]?.histogram?.bucket;
      };
      assert.deepEqual(await buckets(peer), [{ cumulativeCount: 1, upperBound: 1 }]);
      assert.deepEqual(await buckets(ours), await buckets(peer));
    } finally {
      for (const side of [peer, ours]) await send(side, "DELETE", "/metrics/job/noinf");
    }
  });
});

test("a real Prometheus (native histograms on) scrapes the delimited protobuf", async () => {
  // A recording proxy in front of ours shows what Prometheus asked for and what it got.
  const seen: { accept: string | undefined; contentType: string | undefined }[] = [];
  const target = new URL(ours.base);
  const proxy = createServer((req, res) => {
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
        agent: false,
      },
      (r) => {
        seen.push({ accept: req.headers.accept, contentType: r.headers["content-type"] });
        res.writeHead(r.statusCode ?? 502, r.headers as IncomingHttpHeaders);
        r.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const proxyPort = (proxy.address() as AddressInfo).port;
  let prometheus: StartedPrometheus | undefined;
  try {
    prometheus = await startPrometheus(`127.0.0.1:${proxyPort}`, { nativeHistograms: true });
    const query = prometheus.query;
    let gauges: QueryResult[] = [];
    // Poll until the first scrape lands (bounded: 30 tries).
    for (let i = 0; i < 30 && gauges.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 500));
      gauges = await query('pb_gauge{k="v1"}');
    }
    // The gateway's `instance=""` is an absent label to Prometheus.
    assert.deepEqual(gauges[0]?.metric, { __name__: "pb_gauge", job: "pb", k: "v1", zone: "eu" });
    assert.equal(gauges[0]?.value[1], "1");
    assert.equal((await query('s{job="j1",quantile="0.9"}'))[0]?.value[1], "2");
    // Prometheus's protobuf parser spells `le` as OpenMetrics does (`2.0`); its text parser keeps the text's `2`.
    assert.equal((await query('h_bucket{job="j1",le="2.0"}'))[0]?.value[1], "2");
    assert.equal((await query('sp{job="j3"}'))[0]?.metric.l, 'a\nb"c\\ é\tt');
    assert.ok(seen.length > 0);
    assert.match(
      seen[0]?.accept ?? "",
      /^application\/vnd\.google\.protobuf;proto=io\.prometheus\.client\.MetricFamily;encoding=delimited/,
    );
    assert.match(
      seen[0]?.contentType ?? "",
      /^application\/vnd\.google\.protobuf; proto=io\.prometheus\.client\.MetricFamily; encoding=delimited/,
    );
  } finally {
    await prometheus?.close();
    proxy.close();
  }
});
