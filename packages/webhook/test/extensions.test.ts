import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { OUR_WEBHOOK as BIN } from "./support/binaries.js";
import { freePort } from "./support/free-port.js";
import { rawRequest } from "./support/raw-http.js";

// Beyond upstream, each off by default: concurrency limit, command timeout, body limit, JSON logs, rule explanations.
let dir: string;
let child: ChildProcess;
let base: string;
let log = "";

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "webhook-ext-"));
  const sh = (script: string) => [
    { source: "string", name: "-c" },
    { source: "string", name: script },
  ];
  await writeFile(
    join(dir, "hooks.json"),
    JSON.stringify([
      {
        id: "slow",
        "execute-command": "/bin/sh",
        "pass-arguments-to-command": sh(`touch ${join(dir, "slow.started")}; sleep 3`),
        "maximum-concurrent-executions": 1,
      },
      {
        id: "stuck",
        "execute-command": "/bin/sh",
        "include-command-output-in-response": true,
        "pass-arguments-to-command": sh("echo begun; sleep 30"),
        timeout: 1,
      },
      {
        id: "gated",
        "execute-command": "/bin/true",
        "trigger-rule": {
          match: {
            type: "value",
            value: "configured-secret",
            parameter: { source: "payload", name: "token" },
          },
        },
      },
      {
        id: "small",
        "execute-command": "/bin/sh",
        "pass-arguments-to-command": sh(`touch ${join(dir, "small.ran")}`),
        "include-command-output-in-response": true,
      },
    ]),
  );
  const port = await freePort();
  child = spawn(
    process.execPath,
    [
      BIN,
      "-hooks",
      "hooks.json",
      "-ip",
      "127.0.0.1",
      "-port",
      String(port),
      "-verbose",
      "-log-format",
      "json",
      "-max-body-bytes",
      "64",
      "-explain-rules",
    ],
    { cwd: dir, stdio: ["ignore", "pipe", "pipe"] },
  );
  child.stderr?.on("data", (c: Buffer) => (log += c.toString()));
  base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      await fetch(`${base}/`);
      break;
    } catch {
      if (i > 200) throw new Error(`did not start: ${log}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }
});

after(async () => {
  child.kill("SIGKILL");
  await rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

test("maximum-concurrent-executions answers 429 past the limit and runs nothing more", async () => {
  assert.equal((await fetch(`${base}/hooks/slow`)).status, 200);
  for (let i = 0; i < 200 && !(await exists(join(dir, "slow.started"))); i++)
    await new Promise((r) => setTimeout(r, 25));
  const second = await fetch(`${base}/hooks/slow`);
  assert.equal(second.status, 429);
  assert.equal(await second.text(), "Too many concurrent executions of this hook.");
});

test("a command past its timeout is stopped and the request fails with upstream's 500", async () => {
  const r = await fetch(`${base}/hooks/stuck`);
  assert.equal(r.status, 500);
  assert.equal(
    await r.text(),
    "Error occurred while executing the hook's command. Please check your logs for more details.",
  );
  assert.match(log, /error occurred: signal: terminated/);
});

test("-max-body-bytes refuses larger bodies with 413 and runs nothing", async () => {
  const big = await fetch(`${base}/hooks/small`, { method: "POST", body: "x".repeat(65) });
  assert.equal(big.status, 413);
  assert.equal(await exists(join(dir, "small.ran")), false);
  const fits = await fetch(`${base}/hooks/small`, { method: "POST", body: "x".repeat(64) });
  assert.equal(fits.status, 200);
  assert.equal(await exists(join(dir, "small.ran")), true);
});

test("-max-body-bytes also holds for methods node's parser refuses, declared or chunked", async () => {
  await rm(join(dir, "small.ran"), { force: true });
  const port = Number(new URL(base).port);
  const declared = await rawRequest(port, { method: "post", path: "/hooks/small", body: "x".repeat(65) });
  assert.equal(declared.status, 413);
  assert.equal(declared.body.toString(), "Request body too large.");
  const chunk = "x".repeat(40);
  const chunked = await rawRequest(port, {
    method: "post",
    path: "/hooks/small",
    headers: [["Transfer-Encoding", "chunked"]],
    body: `28\r\n${chunk}\r\n28\r\n${chunk}\r\n0\r\n\r\n`,
  });
  assert.equal(chunked.status, 413);
  assert.equal(await exists(join(dir, "small.ran")), false);
});

test("-log-format json writes one JSON object per line", () => {
  const lines = log.trim().split("\n");
  assert.ok(lines.length > 3);
  for (const line of lines) {
    const entry = JSON.parse(line) as { time: string; msg: string };
    assert.equal(typeof entry.msg, "string");
    assert.ok(!Number.isNaN(Date.parse(entry.time)));
  }
  assert.ok(lines.some((l) => l.includes("serving hooks on")));
});

test("-explain-rules logs why a rule failed, without the configured value", async () => {
  const r = await fetch(`${base}/hooks/gated`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: '{"token":"guess"}',
  });
  assert.equal(await r.text(), "Hook rules were not satisfied.");
  assert.match(log, /rule not satisfied: match value: payload \\"token\\" differs from the configured value/);
  assert.ok(!log.includes("configured-secret"));
});
