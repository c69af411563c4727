// HTTP on the wire, ours alone (beside 1.5.1: wire.peers.test.ts): kept-alive connections stay open past node's
// default idle timeout as under Go's http.Server, 1 MB of headers is read, a client that goes away mid-body does no
// harm, and a scrape is gzip-compressed exactly when upstream's promhttp compresses it.
import assert from "node:assert/strict";
import { connect } from "node:net";
import { after, before, test } from "node:test";
import { gunzipSync } from "node:zlib";
import { startGateway, stopAll } from "./support/processes.js";
import { dechunk, idleSession, parseAnswer, rawExchange } from "./support/raw-http.js";

const ports = { ours: 0 };

before(async () => {
  const ours = await startGateway();
  ports.ours = Number(new URL(ours.base).port);
});

after(stopAll);

test("a kept-alive connection idle for 6 s still serves; no Keep-Alive header", async () => {
  const answers = await idleSession(ports.ours);
  assert.equal(answers.length, 2);
  for (const a of answers) assert.doesNotMatch(a, /^keep-alive:/im);
});

test("a path whose escape does not parse: Go's raw 400, its text as body whatever the method, then the close", async () => {
  for (const method of ["GET", "HEAD", "PUT"])
    assert.equal(
      await rawExchange(
        ports.ours,
        `${method} /metrics/job/a%zz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n`,
      ),
      "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request",
    );
});

test("1 MB of headers is still read (node's default limit is 16 KiB, Go's 1 MiB + 4 KiB)", async () => {
  const bytes = `GET /-/healthy HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(1_040_000)}\r\nConnection: close\r\n\r\n`;
  const answer = await rawExchange(ports.ours, bytes);
  assert.match(answer, /^HTTP\/1\.1 200 OK\r\n/);
  assert.ok(answer.endsWith("\r\n\r\nOK"));
});

test("a client that goes away mid-body does not take the server down", async () => {
  await new Promise<void>((resolve) => {
    const socket = connect(ports.ours, "127.0.0.1", () => {
      socket.write("PUT /metrics/job/cut HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc");
      setTimeout(() => {
        socket.destroy();
        resolve();
      }, 100);
    });
  });
  await new Promise((r) => setTimeout(r, 200));
  const res = await fetch(`http://127.0.0.1:${ports.ours}/-/healthy`);
  assert.equal(res.status, 200);
  const metrics = await (await fetch(`http://127.0.0.1:${ports.ours}/metrics`)).text();
  assert.doesNotMatch(metrics, /job="cut"/);
});

test("a scrape is gzip-compressed exactly when upstream's promhttp (client_golang 1.23) compresses it", async () => {
  const push = await fetch(`http://127.0.0.1:${ports.ours}/metrics/job/gz`, {
    method: "PUT",
    body: "gz_metric 2.5\n",
  });
  assert.equal(push.status, 200);
  for (const [acceptEncoding, gzipped] of [
    ["gzip", true],
    ["deflate, gzip;q=0.5", true],
    ["br, deflate", false],
    ["identity", false],
    ["gzip;q=0", false],
    ["identity, gzip", false],
  ] as const) {
    const answer = await rawExchange(
      ports.ours,
      `GET /metrics HTTP/1.1\r\nHost: x\r\nAccept-Encoding: ${acceptEncoding}\r\nConnection: close\r\n\r\n`,
    );
    const split = answer.indexOf("\r\n\r\n");
    const head = answer.slice(0, split);
    let body: Buffer = Buffer.from(answer.slice(split + 4), "latin1");
    if (/^transfer-encoding: chunked/im.test(head)) body = dechunk(body);
    assert.equal(/^content-encoding: gzip$/im.test(head), gzipped, `Accept-Encoding: ${acceptEncoding}`);
    const text = (gzipped ? gunzipSync(body) : body).toString("utf8");
    assert.ok(text.split("\n").includes('gz_metric{instance="",job="gz"} 2.5'), text);
  }
});

test("a gzip scrape followed at once by the client's FIN is answered in full (node drops it by default)", async () => {
  // Past 256 KiB the scrape is compressed as it streams, after awaits: the case node's default loses.
  let big = "fin_metric 3\n";
  for (let i = 0; i < 6000; i++) big += `fin_filler{shard="${i}",padding="${"x".repeat(40)}"} ${i}\n`;
  const push = await fetch(`http://127.0.0.1:${ports.ours}/metrics/job/fin`, { method: "PUT", body: big });
  assert.equal(push.status, 200);
  const answer = await rawExchange(
    ports.ours,
    "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n",
    { halfClose: true },
  );
  const { status, head, body } = parseAnswer(answer);
  assert.equal(status, "HTTP/1.1 200 OK");
  assert.match(head, /^content-encoding: gzip$/im);
  assert.match(body, /^fin_metric\{instance="",job="fin"\} 3$/m);
});
