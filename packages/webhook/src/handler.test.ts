// handleRequest without a port: the spec's response table (docs/Hook-Definition.md, webhook.go hookHandler) on
// plain HookRequests, with a recording command runner instead of a process.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { tmpdir } from "node:os";
import { test } from "node:test";
import type { RunRequest } from "./command/node-spawn.js";
import { type HandlerContext, type HookRequest, handleRequest } from "./handler.js";
import { parseHooks } from "./hooks/hooks-file.js";

const HOOKS = parseHooks(
  JSON.stringify([
    {
      id: "echo",
      "execute-command": "/bin/true",
      "include-command-output-in-response": true,
      "pass-arguments-to-command": [{ source: "payload", name: "who" }],
      "http-methods": ["POST"],
    },
    {
      id: "signed",
      "execute-command": "/bin/true",
      "response-message": "started",
      "trigger-rule": {
        match: { type: "payload-hmac-sha256", secret: "s", parameter: { source: "header", name: "X-Sig" } },
      },
    },
  ]),
);

function context(runs: RunRequest[], output = "out\n"): HandlerContext {
  return {
    hooks: () => new Map(HOOKS.map((h) => [h.id, h])),
    ready: Promise.resolve(),
    urlPrefix: "hooks",
    headers: [],
    defaultMethods: [],
    command: {
      run: async (request) => {
        runs.push(request);
        return { output: Buffer.from(output) };
      },
      env: { PATH: "/usr/bin:/bin" },
      cwd: tmpdir(),
      tmpdir: tmpdir(),
      log: () => undefined,
    },
    log: () => undefined,
    verbose: false,
    debug: false,
    explainRules: false,
    writeRaw: () => undefined,
    now: () => new Date(0),
    running: new Map(),
  };
}

function request(path: string, options: Partial<HookRequest> = {}): HookRequest {
  return {
    method: "POST",
    path,
    query: "",
    headers: { "content-type": ["application/json"] },
    body: Buffer.from('{"who":"me"}'),
    remoteAddr: "127.0.0.1:1",
    requestId: "r1",
    ...options,
  };
}

test("handleRequest: root, unknown paths and hooks, and a method not allowed, as upstream; nothing runs", async () => {
  const runs: RunRequest[] = [];
  const ctx = context(runs);
  assert.deepEqual(
    [
      await handleRequest(request("/", { method: "GET" }), ctx),
      await handleRequest(request("/other"), ctx),
      await handleRequest(request("/hooks/nope"), ctx),
      await handleRequest(request("/hooks/echo", { method: "GET" }), ctx),
    ].map((r) => [r.status, String(r.body)]),
    [
      [200, "OK"],
      [404, "404 page not found\n"],
      [404, "Hook not found."],
      [405, ""],
    ],
  );
  assert.equal(runs.length, 0);
});

test("handleRequest: a triggered hook runs its command without a shell and answers its output", async () => {
  const runs: RunRequest[] = [];
  const response = await handleRequest(request("/hooks/echo"), context(runs, "hello\n"));
  assert.equal(response.status, 200);
  assert.equal(String(response.body), "hello\n");
  assert.deepEqual(
    runs.map((r) => [r.path, r.argv0, r.args]),
    [["/bin/true", "/bin/true", ["me"]]],
  );
});

test("handleRequest: a bad signature is 500 and runs nothing; a missing one is not satisfied; a good one runs", async () => {
  const runs: RunRequest[] = [];
  const ctx = context(runs);
  const body = Buffer.from("{}");
  const good = `sha256=${createHmac("sha256", "s").update(body).digest("hex")}`;
  const answer = async (sig?: string) => {
    const headers = {
      "content-type": ["application/json"],
      ...(sig === undefined ? {} : { "x-sig": [sig] }),
    };
    const r = await handleRequest(request("/hooks/signed", { body, headers }), ctx);
    return [r.status, String(r.body)];
  };
  assert.deepEqual(await answer(`sha256=${"0".repeat(64)}`), [
    500,
    "Error occurred while evaluating hook rules.",
  ]);
  assert.deepEqual(await answer(), [200, "Hook rules were not satisfied."]);
  assert.equal(runs.length, 0);
  assert.deepEqual(await answer(good), [200, "started"]);
  // The command runs after the answer (no output awaited).
  for (let i = 0; i < 100 && runs.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(runs.length, 1);
});

test("handleRequest reads a body not read yet only once a hook matched with an allowed method", async () => {
  const runs: RunRequest[] = [];
  const ctx = context(runs);
  let reads = 0;
  const lazy = (method: string, path: string) =>
    request(path, {
      method,
      body: Buffer.alloc(0),
      readBody: async () => {
        reads++;
        return Buffer.from('{"who":"lazy"}');
      },
    });
  assert.equal((await handleRequest(lazy("POST", "/hooks/nope"), ctx)).status, 404);
  assert.equal((await handleRequest(lazy("GET", "/hooks/echo"), ctx)).status, 405);
  assert.equal(reads, 0);
  assert.equal((await handleRequest(lazy("POST", "/hooks/echo"), ctx)).status, 200);
  assert.equal(reads, 1);
  assert.deepEqual(runs[0]?.args, ["lazy"]);
});
