import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { OUR_WEBHOOK as BIN } from "./support/binaries.js";
import { freePort } from "./support/free-port.js";

const SECRET = "s3cret";
let dir: string;
let server: ChildProcess;
let base: string;

async function startWebhook(args: string[]): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [BIN, ...args, "-ip", "127.0.0.1", "-port", String(port), "-verbose"],
    {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  await new Promise<void>((resolve, reject) => {
    let log = "";
    child.stderr?.on("data", (c: Buffer) => {
      log += c.toString();
      if (log.includes("serving hooks on")) resolve();
    });
    child.on("exit", (code) => reject(new Error(`webhook exited ${code}: ${log}`)));
  });
  return { child, base: `http://127.0.0.1:${port}` };
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "webhook-test-"));
  const writes = (name: string) => [
    { source: "string", name: "-c" },
    { source: "string", name: `printf '%s' "$1" > ${join(dir, name)}; echo "ran $1"` },
    { source: "string", name: "sh" },
  ];
  const hooks = [
    {
      id: "value",
      "execute-command": "/bin/sh",
      "pass-arguments-to-command": [...writes("value.out"), { source: "payload", name: "commit.id" }],
      "include-command-output-in-response": true,
      "trigger-rule": {
        match: { type: "value", value: "yes", parameter: { source: "payload", name: "token" } },
      },
    },
    {
      id: "hmac",
      "execute-command": "/bin/sh",
      "pass-arguments-to-command": [...writes("hmac.out"), { source: "payload", name: "n" }],
      "include-command-output-in-response": true,
      "http-methods": ["POST"],
      "trigger-rule": {
        match: {
          type: "payload-hmac-sha256",
          secret: SECRET,
          parameter: { source: "header", name: "X-Hub-Signature-256" },
        },
      },
    },
    { id: "fail", "execute-command": "/bin/false", "include-command-output-in-response": true },
    {
      id: "async",
      "execute-command": "/bin/sh",
      "pass-arguments-to-command": writes("async.out"),
      "response-message": "started",
    },
    {
      id: "and-or",
      "execute-command": "/bin/echo",
      "include-command-output-in-response": true,
      "trigger-rule": {
        and: [
          { match: { type: "regex", regex: "^refs/heads/", parameter: { source: "payload", name: "ref" } } },
          {
            not: { match: { type: "value", value: "bot", parameter: { source: "header", name: "X-User" } } },
          },
        ],
      },
    },
  ];
  await writeFile(join(dir, "hooks.json"), JSON.stringify(hooks));
  ({ child: server, base } = await startWebhook(["-hooks", join(dir, "hooks.json")]));
});

after(async () => {
  server.kill("SIGTERM");
  await rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

function post(path: string, body: string, headers: Record<string, string> = {}) {
  return fetch(`${base}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body,
  });
}

const exists = (name: string) =>
  stat(join(dir, name)).then(
    () => true,
    () => false,
  );

test("a satisfied value rule runs the command with payload arguments and returns its output", async () => {
  const r = await post("/hooks/value", '{"token":"yes","commit":{"id":"abc"}}');
  assert.equal(r.status, 200);
  assert.equal(await r.text(), "ran abc\n");
  assert.equal(await readFile(join(dir, "value.out"), "utf8"), "abc");
});

test("an unsatisfied value rule answers 200 'Hook rules were not satisfied.' and runs nothing", async () => {
  const r = await post("/hooks/value", '{"token":"no","commit":{"id":"zzz"}}');
  assert.equal(r.status, 200);
  assert.equal(await r.text(), "Hook rules were not satisfied.");
  assert.notEqual(await readFile(join(dir, "value.out"), "utf8").catch(() => ""), "zzz");
});

test("headers named like Object.prototype's properties are headers like any other", async () => {
  // `Constructor: a` used to find Object.prototype.constructor in the header record: the request got no answer.
  for (const name of ["Constructor", "__proto__", "toString"]) {
    const r = await post("/hooks/value", '{"token":"yes","commit":{"id":"proto"}}', { [name]: "a" });
    assert.equal(r.status, 200, name);
    assert.equal(await r.text(), "ran proto\n", name);
  }
  const r = await post("/hooks/and-or", '{"ref":"refs/heads/main"}', { Constructor: "a", "X-User": "bot" });
  assert.equal(await r.text(), "Hook rules were not satisfied.");
});

test("a valid X-Hub-Signature-256 runs the command; numbers keep their source text", async () => {
  const body = '{"n": 1.50}';
  const sig = createHmac("sha256", SECRET).update(body).digest("hex");
  for (const header of [`sha256=${sig}`, sig, `sha256=bad,sha256=${sig}`]) {
    const r = await post("/hooks/hmac", body, { "X-Hub-Signature-256": header });
    assert.equal(r.status, 200, header);
    assert.equal(await r.text(), "ran 1.50\n");
  }
});

test("a forged signature answers 500 'Error occurred while evaluating hook rules.' and runs nothing", async () => {
  const body = '{"n": "forged"}';
  for (const header of [
    `sha256=${"0".repeat(64)}`,
    `SHA256=${createHmac("sha256", SECRET).update(body).digest("hex")}`,
  ]) {
    const r = await post("/hooks/hmac", body, { "X-Hub-Signature-256": header });
    assert.equal(r.status, 500);
    assert.equal(await r.text(), "Error occurred while evaluating hook rules.");
  }
  assert.notEqual(await readFile(join(dir, "hmac.out"), "utf8").catch(() => ""), "forged");
  const missing = await post("/hooks/hmac", body);
  assert.equal(missing.status, 200, "a missing signature header is 'not satisfied'");
  assert.equal(await missing.text(), "Hook rules were not satisfied.");
});

test("unknown ids are 404, disallowed methods 405 with an empty body, / answers OK", async () => {
  const unknown = await fetch(`${base}/hooks/nope`);
  assert.equal(unknown.status, 404);
  assert.equal(await unknown.text(), "Hook not found.");
  const method = await fetch(`${base}/hooks/hmac`);
  assert.equal(method.status, 405);
  assert.equal(await method.text(), "");
  const root = await fetch(`${base}/`);
  assert.equal(await root.text(), "OK");
  const other = await fetch(`${base}/other`);
  assert.equal(other.status, 404);
  assert.equal(await other.text(), "404 page not found\n");
});

test("a command that exits non-zero answers 500 with upstream's text", async () => {
  const r = await fetch(`${base}/hooks/fail`);
  assert.equal(r.status, 500);
  assert.equal(
    await r.text(),
    "Error occurred while executing the hook's command. Please check your logs for more details.",
  );
});

test("a hook without output inclusion answers its response-message at once and runs the command", async () => {
  const r = await fetch(`${base}/hooks/async`);
  assert.equal(r.status, 200);
  assert.equal(await r.text(), "started");
  for (let i = 0; i < 50 && !(await exists("async.out")); i++)
    await new Promise((res) => setTimeout(res, 20));
  assert.ok(await exists("async.out"));
});

test("and/not/regex rules combine as upstream", async () => {
  assert.equal((await post("/hooks/and-or", '{"ref":"refs/heads/main"}')).status, 200);
  const bot = await post("/hooks/and-or", '{"ref":"refs/heads/main"}', { "X-User": "bot" });
  assert.equal(await bot.text(), "Hook rules were not satisfied.");
  const tag = await post("/hooks/and-or", '{"ref":"refs/tags/v1"}');
  assert.equal(await tag.text(), "Hook rules were not satisfied.");
});

test("-version prints the version; an unknown flag is a usage error with exit 2", async () => {
  const run = (args: string[]) =>
    new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      const c = spawn(process.execPath, [BIN, ...args]);
      let out = "";
      let err = "";
      c.stdout.on("data", (d: Buffer) => (out += d));
      c.stderr.on("data", (d: Buffer) => (err += d));
      c.on("close", (code) => resolve({ code, out, err }));
    });
  const v = await run(["-version"]);
  assert.equal(v.code, 0);
  assert.match(v.out, /^webhook version \d+\.\d+\.\d+\n$/);
  const bad = await run(["-bogus"]);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /^flag provided but not defined: -bogus\nUsage of webhook:/);
  const nohooks = await run(["-hooks", "/nonexistent.json"]);
  assert.equal(nohooks.code, 1);
  assert.match(nohooks.out, /couldn't load any hooks from file!/);
});
