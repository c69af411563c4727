// The write queue (src/handlers/write-queue.ts) through the HTTP API: writes reach the store in the order they
// arrived, whatever their format, and a push is answered only once it is applied, while scrapes run among queued
// pushes (bench/pushgateway auth.mjs measures the latency; no timing is asserted here).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { metricFamilyType } from "./support/metric-family-type.js";
import { startGateway, stopAll } from "./support/processes.js";
import { parseAnswer, rawExchange } from "./support/raw-http.js";

let base: string;
let port: number;

before(async () => {
  // A gateway of its own: its first protobuf push below is the one that loads the codec.
  ({ base } = await startGateway());
  port = Number(new URL(base).port);
});

after(stopAll);

const PROTOBUF =
  "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited";

function request(method: string, path: string, body: string | Buffer = "", headers: string[] = []): Buffer {
  const payload = typeof body === "string" ? Buffer.from(body) : body;
  const head = [
    `${method} ${path} HTTP/1.1`,
    "Host: gateway",
    `Content-Length: ${payload.length}`,
    ...headers,
  ];
  return Buffer.concat([Buffer.from(`${head.join("\r\n")}\r\n\r\n`), payload]);
}

test("a PUT and a DELETE pipelined on one connection are applied in the order sent", async () => {
  // The DELETE has no body: node would have it reach the store before the PUT whose body is still being read.
  const raw = await rawExchange(
    port,
    Buffer.concat([
      request("PUT", "/metrics/job/gone", "gone_metric 1\n"),
      request("DELETE", "/metrics/job/gone", "", ["Connection: close"]),
    ]),
  );
  assert.deepEqual(raw.match(/^HTTP\/1\.1 \d+/gm), ["HTTP/1.1 200", "HTTP/1.1 202"]);
  assert.doesNotMatch(await (await fetch(`${base}/metrics`)).text(), /job="gone"/);
});

test("writes pipelined with the process's first protobuf push keep their order, and a read after them sees them", async () => {
  const family = metricFamilyType.fromObject({
    name: "ordered",
    type: 1,
    metric: [{ gauge: { value: 1 } }],
  });
  const protobufPush = Buffer.from(metricFamilyType.encodeDelimited(family).finish());
  // One write of the whole sequence: the gateway reads them in one go, so they are all in flight together.
  const raw = await rawExchange(
    port,
    Buffer.concat([
      request("PUT", "/metrics/job/order", protobufPush, [`Content-Type: ${PROTOBUF}`]),
      request("PUT", "/metrics/job/order", "ordered 2\n"),
      request("POST", "/metrics/job/order", "also_ordered 3\n"),
      // As on Go's server, which reads a connection's next request only after answering the one before.
      request("GET", "/metrics", "", ["Connection: close"]),
    ]),
  );
  assert.deepEqual(raw.match(/^HTTP\/1\.1 \d+/gm), [
    "HTTP/1.1 200",
    "HTTP/1.1 200",
    "HTTP/1.1 200",
    "HTTP/1.1 200",
  ]);
  const text = parseAnswer(raw.slice(raw.lastIndexOf("HTTP/1.1 200"))).body;
  // The text PUT came after the protobuf one: it replaced the group, the POST then added to it.
  assert.match(text, /^ordered\{instance="",job="order"\} 2$/m);
  assert.match(text, /^also_ordered\{instance="",job="order"\} 3$/m);
});

test("among concurrent pushes and scrapes, every answered push is in the scrape that follows its answer", async () => {
  const clients = 10;
  const rounds = 10;
  let scraping = true;
  const scrapes: number[] = [];
  // A scraper alongside, as Prometheus is: every one of its scrapes is answered, and whole.
  const scraper = (async () => {
    while (scraping) {
      const r = await fetch(`${base}/metrics`);
      const text = await r.text();
      scrapes.push(r.status);
      assert.match(text, /# TYPE pushgateway_build_info gauge/);
    }
  })();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = 1; i <= rounds; i++) {
        const r = await fetch(`${base}/metrics/job/concurrent/instance/c${c}`, {
          method: "PUT",
          body: `# TYPE concurrent_value gauge\nconcurrent_value ${i}\n`,
        });
        assert.equal(r.status, 200);
        // Only this client writes its group: the scrape after the answer shows exactly this push.
        const seen = parseAnswer(
          await rawExchange(port, request("GET", "/metrics", "", ["Connection: close"])),
        ).body;
        assert.match(seen, new RegExp(`^concurrent_value\\{instance="c${c}",job="concurrent"\\} ${i}$`, "m"));
      }
    }),
  );
  scraping = false;
  await scraper;
  assert.ok(scrapes.length > 0);
  assert.ok(scrapes.every((s) => s === 200));
});
