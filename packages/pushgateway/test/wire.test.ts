// HTTP on the wire beside Debian's prometheus-pushgateway 1.5.1: kept-alive connections (Go's http.Server has no idle
// timeout), requests Go's parser refuses (its answers byte for byte) and the header size it reads.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { connect } from "node:net";
import { after, before, test } from "node:test";
import { gunzipSync } from "node:zlib";
import { freePort, startGateway } from "./start-gateway.js";

const PEER = "/usr/bin/prometheus-pushgateway";
const children: ChildProcess[] = [];
const ports: Record<"peer" | "ours", number> = { peer: 0, ours: 0 };

before(async () => {
  const ours = await startGateway();
  children.push(ours.child);
  ports.ours = Number(new URL(ours.base).port);
  ports.peer = await freePort();
  // Debian's build defaults --persistence.file to /var/lib/prometheus/pushgateway.data; memory only here.
  const peer = spawn(PEER, [`--web.listen-address=127.0.0.1:${ports.peer}`, "--persistence.file="], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  children.push(peer);
  await new Promise<void>((resolve, reject) => {
    let log = "";
    peer.stderr?.on("data", (d: Buffer) => {
      log += d.toString();
      if (log.includes("Listening on")) resolve();
    });
    peer.on("exit", (code) => reject(new Error(`${PEER} exited ${code}: ${log}`)));
  });
});

after(() => {
  for (const c of children) c.kill("SIGKILL");
});

/** Two requests on one connection, the second after 6 s idle; resolves with both raw answers. */
function idleSession(port: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const answers: string[] = [];
    let text = "";
    const ask = () => socket.write(`GET /-/healthy HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    socket.on("connect", ask);
    socket.on("data", (c: Buffer) => {
      text += c.toString("latin1");
      if (!text.endsWith("\r\n\r\nOK")) return;
      answers.push(text);
      text = "";
      if (answers.length === 1) setTimeout(ask, 6000);
      else {
        socket.end();
        resolve(answers);
      }
    });
    socket.on("error", reject);
    socket.on("end", () => reject(new Error(`closed after ${answers.length} answer(s)`)));
  });
}

test("a kept-alive connection idle for 6 s still serves, on both; no Keep-Alive header", async () => {
  const [peer, ours] = await Promise.all([idleSession(ports.peer), idleSession(ports.ours)]);
  for (const answers of [peer, ours]) {
    assert.equal(answers?.length, 2);
    for (const a of answers ?? []) assert.doesNotMatch(a, /^keep-alive:/im);
  }
});

/** Writes `bytes` as they are and reads the answer until the server closes (or 5 s pass); Date lines removed. */
function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(bytes));
    let text = "";
    const done = () => resolve(text.replace(/^Date: [^\r]*\r\n/m, ""));
    socket.setTimeout(5000, () => {
      socket.destroy();
      done();
    });
    socket.on("data", (c: Buffer) => {
      text += c.toString("latin1");
    });
    socket.on("end", done);
    socket.on("error", (e) => (text === "" ? reject(e) : done()));
  });
}

const MALFORMED: readonly [string, string][] = [
  ["a header line without a colon", "GET /metrics HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n"],
  ["HTTP/1.1 without Host", "GET /metrics HTTP/1.1\r\n\r\n"],
  [
    "a transfer coding other than chunked",
    "PUT /metrics/job/j HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
  ],
  ["a request line that is not HTTP", "GARBAGE\r\n\r\n"],
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

/** The payload of a chunked body. */
function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = data.indexOf("\r\n", at);
    const size = Number.parseInt(data.subarray(at, eol).toString("latin1"), 16);
    if (!(size > 0)) return Buffer.concat(parts);
    parts.push(data.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}
