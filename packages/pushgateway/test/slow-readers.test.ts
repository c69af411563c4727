// Scrapers that read slowly or not at all: a large scrape streamed to a slow reader adds no listener per chunk
// (node warns past ten on one response), 20 stalled scrapers leave /-/healthy, /-/ready and pushes answered, and
// they share the store's exposition order instead of each holding its own. The figures (latency and memory under
// 20 stalled scrapers) are in bench/pushgateway/README.md; there are no timing assertions here.
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { after, before, test } from "node:test";
import { startGateway, stopAll } from "./support/processes.js";

let base: string;
let port: number;
let log: () => string;
const sockets: Socket[] = [];

after(async () => {
  for (const s of sockets) s.destroy();
  await stopAll();
});

before(async () => {
  ({ base, log } = await startGateway());
  port = Number(new URL(base).port);
  // 100k series, about 8 MB of exposition: more than the loopback socket buffers hold.
  for (let g = 0; g < 100; g++) {
    let body = "# TYPE slow_metric gauge\n";
    for (let i = 0; i < 1000; i++) body += `slow_metric{series="s${i}",padding="${"p".repeat(20)}"} ${i}\n`;
    const res = await fetch(`${base}/metrics/job/slow/instance/i${g}`, { method: "PUT", body });
    assert.equal(res.status, 200);
  }
});

/**
 * Sends a scrape on a raw connection that reads nothing (`stall`) or reads in small steps; resolves with bytes read.
 * With `gzip`, the scrape accepts a gzip answer.
 */
function scraper(options: { stall: boolean; gzip?: boolean }): { socket: Socket; done: Promise<number> } {
  const socket = connect(port, "127.0.0.1");
  sockets.push(socket);
  const accept = options.gzip ? "Accept-Encoding: gzip\r\n" : "";
  socket.write(`GET /metrics HTTP/1.1\r\nHost: x\r\n${accept}Connection: close\r\n\r\n`);
  let read = 0;
  const done = new Promise<number>((resolve) => {
    socket.on("close", () => resolve(read));
    socket.on("error", () => resolve(read));
  });
  if (options.stall) socket.pause();
  else {
    socket.on("data", (d: Buffer) => {
      read += d.length;
      // A slow reader: a pause after every piece, so the server's writes wait on drain again and again.
      socket.pause();
      setTimeout(() => socket.resume(), 2);
    });
  }
  return { socket, done };
}

test("a large scrape read slowly is answered whole without a listener piling up per chunk", async () => {
  const { done } = scraper({ stall: false });
  const bytes = await done;
  assert.ok(bytes > 8_000_000, `read ${bytes} bytes`);
  assert.doesNotMatch(log(), /MaxListenersExceededWarning/);
});

test("a large gzip scrape inflates to the identity scrape, read at once or slowly", async () => {
  const identity = await (
    await fetch(`${base}/metrics`, { headers: { "Accept-Encoding": "identity" } })
  ).text();
  assert.ok(identity.length > 8_000_000, `${identity.length} characters`);
  const zipped = await fetch(`${base}/metrics`, { headers: { "Accept-Encoding": "gzip" } });
  assert.equal(zipped.headers.get("content-encoding"), "gzip");
  // fetch inflates the body itself. The gateway's own process_* and pushgateway_* gauges move between two scrapes.
  const stored = (text: string) => text.split("\n").filter((l) => /^(slow_metric|push_)/.test(l));
  assert.deepEqual(stored(await zipped.text()), stored(identity));
  const slow = scraper({ stall: false, gzip: true });
  const bytes = await slow.done;
  // Compressed, so far fewer bytes than the text; the whole answer (gunzip of the HTTP body) is checked above.
  assert.ok(bytes > 100_000 && bytes < identity.length / 2, `read ${bytes} bytes`);
  assert.doesNotMatch(log(), /MaxListenersExceededWarning/);
});

test("a gzip scrape whose reader goes away leaves the gateway serving", async () => {
  const { socket } = scraper({ stall: false, gzip: true });
  await new Promise((resolve) => socket.once("data", resolve));
  socket.destroy();
  const res = await fetch(`${base}/metrics`, { headers: { "Accept-Encoding": "gzip" } });
  assert.equal(res.status, 200);
  assert.ok((await res.text()).length > 8_000_000);
});

test("20 stalled scrapers: /-/healthy, /-/ready and a push are still answered", async () => {
  for (let i = 0; i < 20; i++) scraper({ stall: true });
  // Let every stalled scrape get its answer under way and block on its socket.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  for (const path of ["/-/healthy", "/-/ready"]) {
    const res = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(10_000) });
    assert.equal(res.status, 200, path);
  }
  const push = await fetch(`${base}/metrics/job/other`, {
    method: "PUT",
    body: "other 1\n",
    signal: AbortSignal.timeout(10_000),
  });
  assert.equal(push.status, 200);
  for (const s of sockets) s.destroy();
  assert.doesNotMatch(log(), /MaxListenersExceededWarning/);
});
