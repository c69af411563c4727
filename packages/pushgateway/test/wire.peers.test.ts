// HTTP on the wire beside Debian's prometheus-pushgateway 1.5.1: kept-alive connections (Go's http.Server has no idle
// timeout), requests Go's parser refuses (its answers byte for byte), the header size it reads and when a scrape is
// gzip-compressed. Ours alone: wire.test.ts.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { gunzipSync } from "node:zlib";
import { startPeerGateway } from "./support/peers.js";
import { startGateway, stopAll } from "./support/processes.js";
import { dechunk, idleSession, parseAnswer, rawExchange } from "./support/raw-http.js";
import { startRedis } from "./support/redis-server.js";

const ports: Record<"peer" | "ours" | "oursRedis", number> = { peer: 0, ours: 0, oursRedis: 0 };

before(async () => {
  // The peer first: without it this file must fail naming Debian's prometheus-pushgateway, and nothing else, even
  // where redis-server is missing too (test/missing-peer.test.ts runs this file in `npm test`, which needs only Node).
  const [ours, peer] = await Promise.all([startGateway(), startPeerGateway()]);
  const redis = await startRedis();
  const oursRedis = await startGateway([`--storage.redis-url=${redis.url}`]);
  ports.ours = Number(new URL(ours.base).port);
  ports.peer = Number(new URL(peer.base).port);
  ports.oursRedis = Number(new URL(oursRedis.base).port);
});

after(stopAll);

test("a kept-alive connection idle for 6 s still serves, on both; no Keep-Alive header", async () => {
  const [peer, ours] = await Promise.all([idleSession(ports.peer), idleSession(ports.ours)]);
  for (const answers of [peer, ours]) {
    assert.equal(answers?.length, 2);
    for (const a of answers ?? []) assert.doesNotMatch(a, /^keep-alive:/im);
  }
});

const MALFORMED: readonly [string, string][] = [
  ["a header line without a colon", "GET /metrics HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n"],
  ["HTTP/1.1 without Host", "GET /metrics HTTP/1.1\r\n\r\n"],
  [
    "a transfer coding other than chunked",
    "PUT /metrics/job/j HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
  ],
  ["a request line that is not HTTP", "GARBAGE\r\n\r\n"],
  // Found by http-surface-fuzz: ours answered through node's response (Date, chunked, no body for HEAD).
  ["a path whose escape does not parse", "GET /metrics/job/a%zz HTTP/1.1\r\nHost: x\r\n\r\n"],
  ["a path whose escape does not parse, HEAD", "HEAD /%4 HTTP/1.1\r\nHost: x\r\n\r\n"],
  [
    "a path whose escape does not parse, with a body",
    "PUT /metrics/job/j/a/% HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nm 1\n",
  ],
  ["an unknown HTTP version", "GET /metrics HTTP/9.9\r\nHost: x\r\n\r\n"],
  [
    "headers past Go's 1 MiB + 4 KiB",
    `GET /-/healthy HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(1_060_000)}\r\n\r\n`,
  ],
];

for (const [name, bytes] of MALFORMED) {
  test(`a request Go cannot read, answered as 1.5.1 does: ${name}`, async () => {
    const peer = rawExchange(ports.peer, bytes);
    const ours = rawExchange(ports.ours, bytes);
    assert.match(await peer, /^HTTP\/1\.1 [45]\d\d /);
    assert.equal(await ours, await peer);
  });
}

test("1 MB of headers is still read, as by 1.5.1 (node's default limit is 16 KiB)", async () => {
  const bytes = `GET /-/healthy HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(1_040_000)}\r\nConnection: close\r\n\r\n`;
  for (const port of [ports.peer, ports.ours]) {
    const answer = await rawExchange(port, bytes);
    assert.match(answer, /^HTTP\/1\.1 200 OK\r\n/);
    assert.ok(answer.endsWith("\r\n\r\nOK"));
  }
});

test("a scrape is gzip-compressed when the client accepts it, as by 1.5.1 (promhttp)", async () => {
  for (const port of [ports.peer, ports.ours]) {
    const push = await fetch(`http://127.0.0.1:${port}/metrics/job/gz`, {
      method: "PUT",
      body: "gz_metric 2.5\n",
    });
    assert.equal(push.status, 200);
  }
  const scrape = async (port: number, acceptEncoding: string) => {
    const answer = await rawExchange(
      port,
      `GET /metrics HTTP/1.1\r\nHost: x\r\nAccept-Encoding: ${acceptEncoding}\r\nConnection: close\r\n\r\n`,
    );
    const split = answer.indexOf("\r\n\r\n");
    const head = answer.slice(0, split);
    let body: Buffer = Buffer.from(answer.slice(split + 4), "latin1");
    if (/^transfer-encoding: chunked/im.test(head)) body = dechunk(body);
    const gzipped = /^content-encoding: gzip$/im.test(head);
    const text = (gzipped ? gunzipSync(body) : body).toString("utf8");
    return { gzipped, line: text.split("\n").find((l) => l.startsWith("gz_metric")) };
  };
  for (const [acceptEncoding, gzipped] of [
    ["gzip", true],
    ["deflate, gzip;q=0.5", true],
    ["br, deflate", false],
    ["identity", false],
  ] as const) {
    const peer = await scrape(ports.peer, acceptEncoding);
    const ours = await scrape(ports.ours, acceptEncoding);
    assert.equal(peer.gzipped, gzipped, `peer, Accept-Encoding: ${acceptEncoding}`);
    assert.deepEqual(ours, peer, `Accept-Encoding: ${acceptEncoding}`);
    assert.equal(ours.line, 'gz_metric{instance="",job="gz"} 2.5');
  }
});

test("a request followed at once by the client's FIN is answered in full, memory and Redis mode, as by 1.5.1", async () => {
  const body = "half_closed_metric 7\n";
  const requests: readonly [string, string, (body: string) => boolean][] = [
    [
      "PUT",
      `PUT /metrics/job/half HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      (b) => b === "",
    ],
    [
      "gzip scrape",
      "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n",
      (b) => b.includes('half_closed_metric{instance="",job="half"} 7\n'),
    ],
    [
      "plain scrape",
      "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n",
      (b) => b.includes('half_closed_metric{instance="",job="half"} 7\n'),
    ],
    ["/-/ready", "GET /-/ready HTTP/1.1\r\nHost: x\r\n\r\n", (b) => b === "OK"],
    ["/-/healthy", "GET /-/healthy HTTP/1.1\r\nHost: x\r\n\r\n", (b) => b === "OK"],
    ["status API", "GET /api/v1/status HTTP/1.1\r\nHost: x\r\n\r\n", (b) => b.includes('"status":"success"')],
  ];
  for (const [name, bytes, complete] of requests) {
    for (const which of ["peer", "ours", "oursRedis"] as const) {
      const answer = parseAnswer(await rawExchange(ports[which], bytes, { halfClose: true }));
      assert.equal(answer.status, "HTTP/1.1 200 OK", `${which}, ${name}`);
      assert.ok(complete(answer.body), `${which}, ${name}: ${answer.body.slice(0, 200)}`);
    }
  }
});
