import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { join } from "node:path";
import { after, before, test } from "node:test";
import {
  alive,
  exists,
  type HooksServer,
  httpGet,
  removeDir,
  residentBytes,
  shHook,
  startHooksServer,
  tempDir,
  waitFor,
} from "./support/hooks-server.js";
import { rawExchange, rawRequest } from "./support/raw-http.js";
import { ServerGroup } from "./support/server-group.js";

// `stream-command-output` (beyond upstream, adnanh/webhook#250 / PR #549), through node's fetch and HTTP client.
const group = new ServerGroup();
let dir: string;
let server: HooksServer;
const EXEC_ERROR =
  "Error occurred while executing the hook's command. Please check your logs for more details.";

before(async () => {
  dir = await tempDir("webhook-stream-");
  const waitGo = (name: string) => `while [ ! -e ${join(dir, name)} ]; do sleep 0.02; done`;
  server = await startHooksServer(group, {
    dir,
    hooks: [
      // Writes one line, waits until the test has read it, then writes to stderr and stdout and exits 3.
      {
        id: "stepwise",
        "stream-command-output": true,
        ...shHook(`echo one; ${waitGo("go")}; echo two >&2; printf 'three\\r\\nfour'; exit 3`),
      },
      {
        id: "sse",
        "stream-command-output": true,
        ...shHook(`echo one; ${waitGo("go-sse")}; printf 'two\\nthree\\n'`),
      },
      { id: "quiet-fail", "stream-command-output": true, ...shHook("exit 4") },
      { id: "quiet-ok", "stream-command-output": true, ...shHook("true") },
      {
        // Ignores SIGTERM (inherited by the program it becomes), so only the SIGKILL after the grace ends it.
        id: "stubborn",
        "stream-command-output": true,
        "kill-grace-seconds": 1,
        ...shHook(`trap '' TERM; echo $$ > ${join(dir, "stubborn.pid")}; echo started; exec sleep 1000`),
      },
      {
        // A child in the background, in the command's process group: stopping the group ends it too.
        id: "polite",
        "stream-command-output": true,
        ...shHook(
          `sleep 1000 & echo $! > ${join(dir, "child.pid")}; trap 'echo bye > ${join(dir, "termed")}; exit 0' TERM; echo started; while :; do sleep 0.05; done`,
        ),
      },
      { id: "gigabyte", "stream-command-output": true, ...shHook("head -c 1073741824 /dev/zero") },
      { id: "plain", "include-command-output-in-response": true, ...shHook("echo plain") },
    ],
  });
});

after(async () => {
  await group.stopAll();
  await removeDir(dir);
});

test("stream: the first line reaches the client while the command still runs; the exit code comes in the trailer", async () => {
  const res = await fetch(`${server.base}/hooks/stepwise`, { signal: AbortSignal.timeout(20_000) });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("transfer-encoding"), "chunked");
  assert.equal(res.headers.get("trailer"), "X-Webhook-Exit-Code");
  assert.equal(res.headers.get("content-type"), "text/plain; charset=utf-8");
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const first = await reader.read();
  // The command is blocked until the test creates `go`: what arrived was streamed, not buffered to the end.
  assert.equal(Buffer.from(first.value as Uint8Array).toString(), "one\n");
  assert.equal(await exists(join(dir, "go")), false);
  await writeFile(join(dir, "go"), "");
  let rest = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    rest += Buffer.from(value).toString();
  }
  assert.equal(rest, "two\nthree\r\nfour");
  // node's client reads the trailer fetch does not show.
  const again = await httpGet(`${server.base}/hooks/stepwise`);
  assert.equal(again.status, 200);
  assert.equal(again.body.toString(), "one\ntwo\nthree\r\nfour");
  assert.deepEqual(again.trailers, { "x-webhook-exit-code": "3" });
});

test("stream: Accept: text/event-stream gets Server-Sent Events, a line per event and the exit code last", async () => {
  const res = await fetch(`${server.base}/hooks/sse`, {
    headers: { Accept: "text/event-stream" },
    signal: AbortSignal.timeout(20_000),
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/event-stream");
  assert.equal(res.headers.get("cache-control"), "no-cache");
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const first = await reader.read();
  assert.equal(Buffer.from(first.value as Uint8Array).toString(), "event: output\ndata: one\n\n");
  await writeFile(join(dir, "go-sse"), "");
  let rest = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    rest += Buffer.from(value).toString();
  }
  assert.equal(rest, "event: output\ndata: two\n\nevent: output\ndata: three\n\nevent: exit\ndata: 0\n\n");
});

test("stream: a command that fails before writing anything gets upstream's 500; a silent success an empty 200", async () => {
  const failed = await httpGet(`${server.base}/hooks/quiet-fail`);
  assert.equal(failed.status, 500);
  assert.equal(failed.body.toString(), EXEC_ERROR);
  assert.equal(failed.headers["x-webhook-exit-code"], "4");
  assert.equal(failed.headers["content-length"], "91");
  const ok = await httpGet(`${server.base}/hooks/quiet-ok`);
  assert.equal(ok.status, 200);
  assert.equal(ok.body.length, 0);
  assert.equal(ok.headers["x-webhook-exit-code"], "0");
  const sse = await httpGet(`${server.base}/hooks/quiet-ok`, { headers: { Accept: "text/event-stream" } });
  assert.equal(sse.headers["content-type"], "text/event-stream");
  assert.equal(sse.body.toString(), "event: exit\ndata: 0\n\n");
});

test("stream: a client that goes away stops the command's process group (SIGTERM; SIGKILL after the grace)", async () => {
  for (const [hook, pidFile] of [
    ["polite", "child.pid"],
    ["stubborn", "stubborn.pid"],
  ] as const) {
    const abort = new AbortController();
    const res = await fetch(`${server.base}/hooks/${hook}`, {
      signal: AbortSignal.any([abort.signal, AbortSignal.timeout(20_000)]),
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    assert.equal(Buffer.from((await reader.read()).value as Uint8Array).toString(), "started\n");
    const pid = Number((await readFile(join(dir, pidFile), "utf8")).trim());
    assert.ok(alive(pid), `${hook}: ${pid} runs before the client leaves`);
    abort.abort();
    await waitFor(`${hook}'s process ${pid} to end`, () => !alive(pid), 8000);
  }
  // The polite command had its TERM handler run; the stubborn one could only be killed.
  assert.equal(await readFile(join(dir, "termed"), "utf8"), "bye\n");
});

test("stream: 1 GiB of output, read with a pause, passes with the server's memory flat", async () => {
  const pid = server.child.pid as number;
  const before = await residentBytes(pid);
  let peak = before;
  let total = 0;
  await new Promise<void>((resolve, reject) => {
    const req = request(`${server.base}/hooks/gigabyte`, (res) => {
      let paused = false;
      res.on("data", (c: Buffer) => {
        total += c.length;
        // A slow client: stop reading for a second after 64 MiB. Without backpressure the command would fill the
        // server's memory meanwhile.
        if (!paused && total > 64 * 1024 * 1024) {
          paused = true;
          res.pause();
          setTimeout(async () => {
            peak = Math.max(peak, await residentBytes(pid));
            res.resume();
          }, 1000);
        }
      });
      res.on("end", () => {
        assert.equal(res.trailers["x-webhook-exit-code"], "0");
        resolve();
      });
      res.on("error", reject);
    });
    const sampler = setInterval(() => {
      residentBytes(pid).then((rss) => {
        peak = Math.max(peak, rss);
      }, reject);
    }, 100);
    req.on("close", () => clearInterval(sampler));
    req.setTimeout(120_000, () => req.destroy(new Error("1 GiB stream timed out")));
    req.on("error", reject);
    req.end();
  });
  assert.equal(total, 1024 * 1024 * 1024);
  // Generous bound for the GC's slack: a buffered answer would add 1 GiB.
  assert.ok(
    peak - before < 96 * 1024 * 1024,
    `server memory grew by ${((peak - before) / 2 ** 20).toFixed(1)} MiB`,
  );
});

test("stream: HTTP/1.0 gets the output until the connection closes; other hooks answer as before", async () => {
  // `go-sse` exists by now (the SSE test made it), so the command runs to its end.
  const raw = await rawExchange(server.port, "GET /hooks/sse HTTP/1.0\r\n\r\n");
  assert.match(raw, /^HTTP\/1\.0 200 OK\r\n/);
  assert.doesNotMatch(raw, /Transfer-Encoding/i);
  assert.ok(raw.endsWith("\r\n\r\none\ntwo\nthree\n"), raw);
  // HEAD: the command runs to its end as for GET; no body is sent.
  const head = await rawRequest(server.port, { method: "HEAD", path: "/hooks/sse" });
  assert.equal(head.status, 200);
  assert.equal(head.body.length, 0);
  const plain = await rawRequest(server.port, { method: "GET", path: "/hooks/plain" });
  assert.equal(plain.status, 200);
  assert.equal(plain.body.toString(), "plain\n");
  // No header of the extensions on a hook without them.
  assert.deepEqual(
    plain.headers.map(([k]) => k),
    ["Date", "Content-Length", "Content-Type", "Connection"],
  );
});
