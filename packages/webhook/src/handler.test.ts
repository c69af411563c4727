// handleRequest without a port: requests as values, the command seam recording what would run. The first half
// reads real-shaped bodies (the Plex multipart case); the second is the spec's response table
// (docs/Hook-Definition.md, webhook.go hookHandler).

import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import type { RunRequest } from "./command/node-spawn.js";
import { type HandlerContext, type HookRequest, handleRequest } from "./handler.js";
import type { Hook } from "./hooks/hook.js";
import { parseHooks } from "./hooks/hooks-file.js";

const PLEX = fileURLToPath(new URL("../../test/fixtures/multipart/plex.txt", import.meta.url));

function context(
  hooksFile: string,
  options: {
    runs?: RunRequest[];
    output?: string;
    verbose?: boolean;
    env?: Record<string, string>;
    cwd?: string;
  } = {},
): HandlerContext & { lines: string[] } {
  const hooks = new Map<string, Hook>(parseHooks(hooksFile).map((h) => [h.id, h]));
  const lines: string[] = [];
  const log = (line: string) => lines.push(line);
  const runs = options.runs ?? [];
  return {
    lines,
    hooks: () => hooks,
    ready: Promise.resolve(),
    urlPrefix: "hooks",
    headers: [],
    defaultMethods: [],
    command: {
      run: async (request) => {
        runs.push(request);
        return { output: Buffer.from(options.output ?? `ran ${request.args.join(" ")}\n`) };
      },
      env: options.env ?? {},
      cwd: options.cwd ?? "/",
      tmpdir: tmpdir(),
      log,
    },
    log,
    verbose: options.verbose ?? true,
    debug: false,
    explainRules: false,
    writeRaw: () => {},
    now: () => new Date(0),
    running: new Map(),
  };
}

function request(path: string, init: Partial<HookRequest> = {}): HookRequest {
  return {
    method: "POST",
    path,
    query: "",
    headers: {},
    body: Buffer.alloc(0),
    remoteAddr: "127.0.0.1:1234",
    requestId: "rid",
    ...init,
  };
}

const text = (body: string | Buffer) => body.toString();

test("routing: root, unknown id, outside the prefix, a method not allowed", async () => {
  const ctx = context("- id: a\n  execute-command: /bin/echo\n  http-methods: [post]\n");
  const root = await handleRequest(request("/", { method: "GET" }), ctx);
  assert.deepEqual([root.status, text(root.body)], [200, "OK"]);
  const unknown = await handleRequest(request("/hooks/b"), ctx);
  assert.deepEqual([unknown.status, text(unknown.body)], [404, "Hook not found."]);
  const outside = await handleRequest(request("/other"), ctx);
  assert.deepEqual([outside.status, text(outside.body)], [404, "404 page not found\n"]);
  const get = await handleRequest(request("/hooks/a", { method: "GET" }), ctx);
  assert.deepEqual([get.status, text(get.body), get.headers], [405, "", []]);
});

test("rules: not satisfied (with the configured code), satisfied, an evaluation error", async () => {
  const runs: RunRequest[] = [];
  const ctx = context(
    `- id: a
  execute-command: /bin/echo
  include-command-output-in-response: true
  pass-arguments-to-command: [{source: payload, name: who}]
  trigger-rule-mismatch-http-response-code: 400
  trigger-rule: {match: {type: value, value: me, parameter: {source: payload, name: who}}}
- id: bad
  execute-command: /bin/echo
  trigger-rule: {match: {type: regex, regex: "(", parameter: {source: payload, name: who}}}
`,
    { runs },
  );
  const json = (who: string) => ({
    headers: { "content-type": "application/json" },
    body: Buffer.from(`{"who":"${who}"}`),
  });
  const no = await handleRequest(request("/hooks/a", json("you")), ctx);
  assert.deepEqual([no.status, text(no.body)], [400, "Hook rules were not satisfied."]);
  assert.equal(runs.length, 0);
  const yes = await handleRequest(request("/hooks/a", json("me")), ctx);
  assert.deepEqual([yes.status, text(yes.body)], [200, "ran me\n"]);
  assert.deepEqual(
    runs.map((r) => [r.path, r.argv0, r.args]),
    [["/bin/echo", "/bin/echo", ["me"]]],
  );
  const bad = await handleRequest(request("/hooks/bad", json("x")), ctx);
  assert.deepEqual([bad.status, text(bad.body)], [500, "Error occurred while evaluating hook rules."]);
});

test("upstream's Plex case: a bare-LF multipart body, its JSON value parsed, the rule satisfied", async () => {
  const ctx = context(`- id: plex
  execute-command: /bin/echo
  response-message: success
  parse-parameters-as-json: [{source: payload, name: payload}]
  trigger-rule: {match: {type: value, value: media.play, parameter: {source: payload, name: payload.event}}}
`);
  const res = await handleRequest(
    request("/hooks/plex", {
      headers: { "content-type": "multipart/form-data; boundary=xxx" },
      body: await readFile(PLEX),
    }),
    ctx,
  );
  assert.deepEqual([res.status, text(res.body)], [200, "success"]);
  assert.ok(ctx.lines.includes('[rid] found multipart form value "payload"'));
});

test("a multipart body Go refuses is a 500, its error logged with upstream's empty line after it", async () => {
  const ctx = context("- id: a\n  execute-command: /bin/echo\n");
  const res = await handleRequest(
    request("/hooks/a", {
      headers: { "content-type": "multipart/form-data; boundary=xxx" },
      body: Buffer.from("--xxx\r\nnocolon\r\n\r\nv\r\n--xxx--"),
    }),
    ctx,
  );
  assert.deepEqual([res.status, text(res.body)], [500, "Error occurred while parsing multipart form."]);
  assert.ok(
    ctx.lines.includes(
      '[rid] error parsing multipart form: malformed MIME header: missing colon: "nocolon"\n',
    ),
  );
});

// The response table.

const TABLE_HOOKS = JSON.stringify([
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
]);

function tableContext(runs: RunRequest[], output = "out\n"): HandlerContext {
  return context(TABLE_HOOKS, {
    runs,
    output,
    verbose: false,
    env: { PATH: "/usr/bin:/bin" },
    cwd: tmpdir(),
  });
}

function tableRequest(path: string, options: Partial<HookRequest> = {}): HookRequest {
  return request(path, {
    headers: { "content-type": ["application/json"] },
    body: Buffer.from('{"who":"me"}'),
    remoteAddr: "127.0.0.1:1",
    requestId: "r1",
    ...options,
  });
}

test("handleRequest: root, unknown paths and hooks, and a method not allowed, as upstream; nothing runs", async () => {
  const runs: RunRequest[] = [];
  const ctx = tableContext(runs);
  assert.deepEqual(
    [
      await handleRequest(tableRequest("/", { method: "GET" }), ctx),
      await handleRequest(tableRequest("/other"), ctx),
      await handleRequest(tableRequest("/hooks/nope"), ctx),
      await handleRequest(tableRequest("/hooks/echo", { method: "GET" }), ctx),
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
  const response = await handleRequest(tableRequest("/hooks/echo"), tableContext(runs, "hello\n"));
  assert.equal(response.status, 200);
  assert.equal(String(response.body), "hello\n");
  assert.deepEqual(
    runs.map((r) => [r.path, r.argv0, r.args]),
    [["/bin/true", "/bin/true", ["me"]]],
  );
});

test("handleRequest: a bad signature is 500 and runs nothing; a missing one is not satisfied; a good one runs", async () => {
  const runs: RunRequest[] = [];
  const ctx = tableContext(runs);
  const body = Buffer.from("{}");
  const good = `sha256=${createHmac("sha256", "s").update(body).digest("hex")}`;
  const answer = async (sig?: string) => {
    const headers = {
      "content-type": ["application/json"],
      ...(sig === undefined ? {} : { "x-sig": [sig] }),
    };
    const r = await handleRequest(tableRequest("/hooks/signed", { body, headers }), ctx);
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
  const ctx = tableContext(runs);
  let reads = 0;
  const lazy = (method: string, path: string) =>
    tableRequest(path, {
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

test("headers spelled like Object.prototype properties are headers like any other (entire-headers, header source)", async () => {
  const runs: RunRequest[] = [];
  const ctx = context(
    [
      "- id: h",
      "  execute-command: /bin/echo",
      "  include-command-output-in-response: true",
      "  pass-arguments-to-command:",
      "    - {source: header, name: __proto__}",
      "    - {source: header, name: constructor}",
      "    - {source: entire-headers, name: e}",
    ].join("\n"),
    { runs },
  );
  // JSON.parse makes `__proto__` an own key, as the server's header record (no prototype) holds it.
  const headers = JSON.parse('{"__proto__": "José", "constructor": "c"}') as Record<string, string>;
  const res = await handleRequest(request("/hooks/h", { headers }), ctx);
  assert.equal(res.status, 200);
  assert.deepEqual(runs[0]?.args, ["José", "c", '{"Constructor":"c","__proto__":"José"}']);
});

test("a multipart form with no values and no JSON files has no payload: entire-payload is null, as upstream's", async () => {
  const runs: RunRequest[] = [];
  const ctx = context(
    [
      "- id: m",
      "  execute-command: /bin/echo",
      "  include-command-output-in-response: true",
      "  pass-arguments-to-command: [{source: entire-payload, name: e}]",
    ].join("\n"),
    { runs },
  );
  const send = (body: string) =>
    handleRequest(
      request("/hooks/m", {
        headers: { "content-type": "multipart/form-data; boundary=B" },
        body: Buffer.from(body),
      }),
      ctx,
    );
  await send("--B--\r\n");
  await send('--B\r\nContent-Disposition: form-data; name="f"; filename="x"\r\n\r\nnot json\r\n--B--\r\n');
  await send('--B\r\nContent-Disposition: form-data; name="__proto__"\r\n\r\nv\r\n--B--\r\n');
  assert.deepEqual(
    runs.map((r) => r.args),
    [["null"], ["null"], ['{"__proto__":"v"}']],
  );
});

test("multipart by incoming-payload-content-type: the body is read only where Go's ParseMultipartForm reads it", async () => {
  const ctx = context(
    [
      "- id: m",
      "  execute-command: /bin/echo",
      "  include-command-output-in-response: true",
      "  incoming-payload-content-type: multipart/form-data; boundary=B",
    ].join("\n"),
  );
  const send = async (method: string, contentType: string, body: string) => {
    let reads = 0;
    const res = await handleRequest(
      request("/hooks/m", {
        method,
        headers: { "content-type": contentType },
        readBody: async () => {
          reads++;
          return Buffer.from(body);
        },
      }),
      ctx,
    );
    return [res.status, reads];
  };
  assert.deepEqual(await send("POST", "application/json", "{}"), [500, 0]);
  assert.deepEqual(await send("PUT", "application/x-www-form-urlencoded", "a=1"), [500, 1]);
  assert.deepEqual(await send("GET", "application/x-www-form-urlencoded", "a=1"), [500, 0]);
  assert.deepEqual(await send("POST", "multipart/form-data", "--B--\r\n"), [500, 0]);
  assert.deepEqual(await send("POST", "multipart/form-data; boundary=B", "--B--\r\n"), [200, 1]);
});
