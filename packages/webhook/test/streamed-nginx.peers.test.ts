// Streamed output behind Debian's nginx with its default proxy buffering (the set-up adnanh/webhook#250's users
// have): `X-Accel-Buffering: no` must get each line to the client while the command still runs, and a client that
// goes away must stop the command through the proxy (nginx closes its upstream connection).
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { freePort } from "./support/free-port.js";
import {
  alive,
  exists,
  type HooksServer,
  removeDir,
  shHook,
  startHooksServer,
  tempDir,
  waitFor,
} from "./support/hooks-server.js";
import { startNginx, stopNginx } from "./support/nginx.js";
import { ServerGroup } from "./support/server-group.js";

const group = new ServerGroup();
let dir: string;
let server: HooksServer;
let nginx: ChildProcess | undefined;
let proxy: string;

before(async () => {
  dir = await tempDir("webhook-stream-nginx-");
  const waitGo = (name: string) => `while [ ! -e ${join(dir, name)} ]; do sleep 0.02; done`;
  server = await startHooksServer(group, {
    dir,
    hooks: [
      { id: "stepwise", "stream-command-output": true, ...shHook(`echo one; ${waitGo("go")}; echo two`) },
      { id: "events", "stream-command-output": true, ...shHook(`echo one; ${waitGo("go-sse")}; echo two`) },
      {
        id: "forever",
        "stream-command-output": true,
        ...shHook(`echo $$ > ${join(dir, "forever.pid")}; echo started; exec sleep 1000`),
      },
    ],
  });
  const port = await freePort();
  proxy = `http://127.0.0.1:${port}`;
  nginx = await startNginx(dir, {
    port,
    locations: `    location /hooks/ {
      proxy_pass ${server.base};
      proxy_http_version 1.1;
    }`,
  });
  await waitFor("nginx to serve", async () => {
    if (nginx?.exitCode !== null) throw new Error("nginx exited");
    return fetch(`${proxy}/hooks/none`).then(
      (res) => res.status === 404,
      () => false,
    );
  });
});

after(async () => {
  await stopNginx(nginx);
  await group.stopAll();
  const pid = Number(await readFile(join(dir, "forever.pid"), "utf8").catch(() => "0"));
  if (pid > 0 && alive(pid)) process.kill(pid, "SIGKILL");
  await removeDir(dir);
});

async function readAll(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text;
    text += Buffer.from(value).toString();
  }
}

test("behind nginx: each line reaches the client while the command still runs", async () => {
  const res = await fetch(`${proxy}/hooks/stepwise`, { signal: AbortSignal.timeout(20_000) });
  assert.equal(res.status, 200);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  // The command waits for `go`, which only this test creates: nginx did not hold the line back.
  assert.equal(Buffer.from((await reader.read()).value as Uint8Array).toString(), "one\n");
  assert.equal(await exists(join(dir, "go")), false);
  await writeFile(join(dir, "go"), "");
  assert.equal(await readAll(reader), "two\n");
});

test("behind nginx: Server-Sent Events arrive as they are written", async () => {
  const res = await fetch(`${proxy}/hooks/events`, {
    headers: { Accept: "text/event-stream" },
    signal: AbortSignal.timeout(20_000),
  });
  assert.equal(res.headers.get("content-type"), "text/event-stream");
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  assert.equal(
    Buffer.from((await reader.read()).value as Uint8Array).toString(),
    "event: output\ndata: one\n\n",
  );
  await writeFile(join(dir, "go-sse"), "");
  assert.equal(await readAll(reader), "event: output\ndata: two\n\nevent: exit\ndata: 0\n\n");
});

test("behind nginx: a client that goes away stops the command", async () => {
  const abort = new AbortController();
  const res = await fetch(`${proxy}/hooks/forever`, {
    signal: AbortSignal.any([abort.signal, AbortSignal.timeout(20_000)]),
  });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  assert.equal(Buffer.from((await reader.read()).value as Uint8Array).toString(), "started\n");
  const pid = Number(await readFile(join(dir, "forever.pid"), "utf8"));
  abort.abort();
  await waitFor(`process ${pid} to end`, () => !alive(pid));
});
