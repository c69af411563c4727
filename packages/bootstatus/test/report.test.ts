import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { FIXTURES, runCli } from "./support/run-cli.js";
import { startServer } from "./support/start-server.js";

// `report --to` end to end: our webhook (packages/webhook, its CLI over TLS with a payload-hmac-sha256 hook) and
// our Pushgateway (packages/pushgateway, plain and TLS), both started from their built bin as users start them;
// a local HTTP server stands in for a receiver that fails, to see the retries.

const WEBHOOK = fileURLToPath(new URL("../../../webhook/bin/webhook.js", import.meta.url));
const PUSHGATEWAY = fileURLToPath(new URL("../../../pushgateway/bin/pushgateway.js", import.meta.url));
const TLS = path.join(FIXTURES, "tls");
const SECRET = "s3cret-shared-with-the-hook";
const root = (name: string): string => path.join(FIXTURES, name, "root");

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(tmpdir(), "bootstatus-report-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Our webhook over TLS with one hook that only runs for a valid X-Hub-Signature-256 and writes the payload to `out`. */
async function startWebhook(t: { after(fn: () => void): void }, dir: string, out: string): Promise<string> {
  assert.ok(existsSync(WEBHOOK), `${WEBHOOK} is missing`);
  const hooks = [
    {
      id: "boot-report",
      "execute-command": process.execPath,
      "pass-arguments-to-command": [
        { source: "string", name: "-e" },
        { source: "string", name: "require('node:fs').writeFileSync(process.argv[1], process.argv[2])" },
        { source: "string", name: out },
        { source: "entire-payload" },
      ],
      "trigger-rule-mismatch-http-response-code": 403,
      "trigger-rule": {
        match: {
          type: "payload-hmac-sha256",
          secret: SECRET,
          parameter: { source: "header", name: "X-Hub-Signature-256" },
        },
      },
    },
  ];
  writeFileSync(path.join(dir, "hooks.json"), JSON.stringify(hooks));
  const server = startServer(
    process.execPath,
    [
      WEBHOOK,
      "-hooks",
      path.join(dir, "hooks.json"),
      "-ip",
      "127.0.0.1",
      "-port",
      "0",
      "-verbose",
      "-secure",
      "-cert",
      path.join(TLS, "server.pem"),
      "-key",
      path.join(TLS, "server-key.pem"),
    ],
    /serving hooks on (https:\/\/127\.0\.0\.1:\d+)/,
  );
  t.after(() => server.child.kill());
  return server.ready;
}

async function startPushgateway(t: { after(fn: () => void): void }, extra: string[] = []): Promise<string> {
  assert.ok(existsSync(PUSHGATEWAY), `${PUSHGATEWAY} is missing`);
  const server = startServer(
    process.execPath,
    [PUSHGATEWAY, "--web.listen-address=127.0.0.1:0", ...extra],
    /address="?(127\.0\.0\.1:\d+)/,
  );
  t.after(() => server.child.kill());
  return server.ready;
}

/** Waits until `file` exists (the hook runs after webhook answered), 10 s at most. */
async function waitForFile(file: string): Promise<string> {
  for (let i = 0; i < 200 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 50));
  return readFileSync(file, "utf8");
}

test("https: our webhook's payload-hmac-sha256 hook takes the signed report v1, trusting NODE_EXTRA_CA_CERTS", async (t) => {
  const dir = tempDir(t);
  const out = path.join(dir, "payload.json");
  const base = await startWebhook(t, dir, out);
  const run = await runCli(
    [
      "report",
      "--to",
      `${base}/hooks/boot-report`,
      "--timeout",
      "20",
      "--explain",
      "--root",
      root("explain-module-fails"),
    ],
    { env: { BOOTSTATUS_REPORT_SECRET: SECRET, NODE_EXTRA_CA_CERTS: path.join(TLS, "ca.pem") } },
  );
  assert.equal(run.code, 1, run.stderr); // delivered; the boot itself failed
  assert.match(
    run.stdout,
    /^bootstatus: sent error - done to https:\/\/127\.0\.0\.1:\d+\/hooks\/boot-report: HTTP 200 \(attempt 1\)\n$/,
  );
  const payload = JSON.parse(await waitForFile(out)) as {
    status: { status: string };
    diagnostics: { stages: unknown[] };
  };
  assert.equal(payload.status.status, "error");
  assert.equal(payload.diagnostics.stages.length, 4);
  // What was posted is what `status --format json --explain` prints, and it validates.
  const local = await runCli([
    "--format",
    "json",
    "--explain",
    "--quiet",
    "--root",
    root("explain-module-fails"),
  ]);
  assert.deepEqual(payload, JSON.parse(local.stdout));
  writeFileSync(path.join(dir, "sent.json"), JSON.stringify(payload));
  assert.equal((await runCli(["validate", path.join(dir, "sent.json")])).code, 0);
});

test("https: SSL_CERT_FILE as the system store is trusted; without a trusted CA the TLS error is the exit-4 error", async (t) => {
  const dir = tempDir(t);
  const out = path.join(dir, "payload.json");
  const base = await startWebhook(t, dir, out);
  const url = `${base}/hooks/boot-report`;
  const ok = await runCli(["report", "--to", url, "--timeout", "20", "--root", root("explain-healthy")], {
    env: { BOOTSTATUS_REPORT_SECRET: SECRET, SSL_CERT_FILE: path.join(TLS, "ca.pem") },
  });
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal((JSON.parse(await waitForFile(out)) as { status: { status: string } }).status.status, "done");
  const untrusted = await runCli(
    ["report", "--to", url, "--timeout", "2", "--root", root("explain-healthy")],
    {
      env: { BOOTSTATUS_REPORT_SECRET: SECRET, SSL_CERT_FILE: "/nonexistent" },
    },
  );
  assert.equal(untrusted.code, 4);
  assert.match(
    untrusted.stderr,
    /bootstatus: cannot send the report to https:\/\/127\.0\.0\.1:\d+\/hooks\/boot-report \(attempt \d+\): \S*(SELF_SIGNED|UNABLE_TO_VERIFY|unable to (get|verify))/,
  );
});

test("https: a wrong secret fails the hook's rule (webhook answers 500, as adnanh's): retried, exit 4, the hook never ran", async (t) => {
  const dir = tempDir(t);
  const out = path.join(dir, "payload.json");
  const base = await startWebhook(t, dir, out);
  const run = await runCli(
    ["report", "--to", `${base}/hooks/boot-report`, "--timeout", "2", "--root", root("explain-healthy")],
    {
      env: { BOOTSTATUS_REPORT_SECRET: "not-the-secret", NODE_EXTRA_CA_CERTS: path.join(TLS, "ca.pem") },
    },
  );
  assert.equal(run.code, 4);
  assert.match(run.stderr, /\(attempt \d+\): HTTP 500: Error occurred while evaluating hook rules\.\n$/);
  assert.equal(existsSync(out), false);
});

test("pushgateway:// PUTs the Prometheus text under the grouping key; our Pushgateway serves it back", async (t) => {
  const address = await startPushgateway(t);
  const run = await runCli([
    "report",
    "--to",
    `pushgateway://${address}/job/bootstatus/instance/vm1`,
    "--timeout",
    "20",
    "--root",
    root("degraded-done"),
  ]);
  assert.equal(run.code, 2, run.stderr); // delivered; the boot is degraded
  const scraped = await (await fetch(`http://${address}/metrics`)).text();
  assert.match(
    scraped,
    /\nbootstatus_info\{boot_status_code="enabled-by-generator",extended_status="degraded done",instance="vm1",job="bootstatus",status="done"\} 1\n/,
  );
  assert.match(
    scraped,
    /\nbootstatus_recoverable_errors\{instance="vm1",job="bootstatus",level="ERROR"\} 2\n/,
  );
});

test("pushgateways:// over TLS to our Pushgateway with a web config, basic auth from the URL", async (t) => {
  const dir = tempDir(t);
  // bcrypt of "pw" (cost 10, made with `htpasswd -nBC 10 "" | tr -d ':\n'`'s equivalent, bcryptjs hashSync), as
  // exporter-toolkit's basic_auth_users takes it.
  const hash = "$2b$10$FCJ7Xp1HNl94i9Db6ScoFe/NoCJ./gsBTd1jl0VFjr/us03wZrv8O";
  writeFileSync(
    path.join(dir, "web.yml"),
    `tls_server_config:\n  cert_file: ${path.join(TLS, "server.pem")}\n  key_file: ${path.join(TLS, "server-key.pem")}\n` +
      `basic_auth_users:\n  boot: ${hash}\n`,
  );
  const address = await startPushgateway(t, [`--web.config.file=${path.join(dir, "web.yml")}`]);
  const env = { NODE_EXTRA_CA_CERTS: path.join(TLS, "ca.pem") };
  const run = await runCli(
    [
      "report",
      "--to",
      `pushgateways://boot:pw@${address}/job/bootstatus`,
      "--timeout",
      "20",
      "--root",
      root("done-nocloud"),
    ],
    { env },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.doesNotMatch(run.stdout + run.stderr, /pw@/); // the password is never printed
  const wrong = await runCli(
    [
      "report",
      "--to",
      `pushgateways://boot:nope@${address}/job/bootstatus`,
      "--timeout",
      "20",
      "--root",
      root("done-nocloud"),
    ],
    { env },
  );
  assert.equal(wrong.code, 4);
  assert.match(wrong.stderr, /HTTP 401/);
  assert.doesNotMatch(wrong.stderr, /nope/);
});

test("retries with back-off until the receiver takes it; gives up at --timeout with the last error (exit 4)", async (t) => {
  const bodies: { status: number; signature: string | undefined; body: string }[] = [];
  let failFirst = 2;
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      const status = failFirst-- > 0 ? 503 : 200;
      bodies.push({ status, signature: req.headers["x-hub-signature-256"] as string | undefined, body });
      res.writeHead(status).end(status === 200 ? "ok" : "busy, try later");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => server.close());
  const { port } = server.address() as { port: number };
  const run = await runCli(
    ["report", "--to", `http://127.0.0.1:${port}/r`, "--timeout", "20", "--root", root("done-nocloud")],
    {
      env: { BOOTSTATUS_REPORT_SECRET: SECRET },
    },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /HTTP 200 \(attempt 3\)/);
  assert.match(
    run.stderr,
    /attempt 1 to http:\/\/127\.0\.0\.1:\d+\/r failed \(HTTP 503: busy, try later\); again in 500 ms\n/,
  );
  assert.match(run.stderr, /attempt 2 .* again in 1000 ms\n/);
  const last = bodies.at(-1);
  assert.equal(
    last?.signature,
    `sha256=${createHmac("sha256", SECRET)
      .update(last?.body ?? "")
      .digest("hex")}`,
  );
  failFirst = 1_000;
  const gaveUp = await runCli(
    ["report", "--to", `http://127.0.0.1:${port}/r`, "--timeout", "2", "--root", root("done-nocloud")],
    {
      env: { BOOTSTATUS_REPORT_SECRET: SECRET },
    },
  );
  assert.equal(gaveUp.code, 4);
  assert.match(
    gaveUp.stderr,
    /bootstatus: cannot send the report to http:\/\/127\.0\.0\.1:\d+\/r \(attempt \d+\): HTTP 503: busy, try later\n$/,
  );
  const refused = await runCli(
    ["report", "--to", "http://127.0.0.1:1/r", "--timeout", "1", "--root", root("done-nocloud")],
    {
      env: { BOOTSTATUS_REPORT_SECRET: SECRET },
    },
  );
  assert.equal(refused.code, 4);
  assert.match(refused.stderr, /ECONNREFUSED/);
});

test("report waits for the final status within --timeout and still sends what it has (exit 3)", async (t) => {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      bodies.push(body);
      res.end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => server.close());
  const { port } = server.address() as { port: number };
  const run = await runCli(
    ["report", "--to", `http://127.0.0.1:${port}/r`, "--timeout", "1", "--root", root("running-stage-init")],
    {
      env: { BOOTSTATUS_REPORT_SECRET: SECRET },
    },
  );
  assert.equal(run.code, 3, run.stderr);
  assert.equal((JSON.parse(bodies[0] ?? "{}") as { status: { status: string } }).status.status, "running");
});

test("report refuses what it cannot do: no secret for https, a bad URL, --format", async () => {
  const cases: [string[], Record<string, string>, RegExp][] = [
    [["report", "--to", "https://example.invalid/h"], {}, /set BOOTSTATUS_REPORT_SECRET/],
    [["report", "--to", "ftp://x/y"], {}, /unsupported scheme 'ftp:'/],
    [["report", "--to", "pushgateway://h:9091/metrics"], {}, /pushgateway\[s\]:\/\/host:port\/job\/<job>/],
    [
      ["report", "--to", "pushgateway://h:9091/job/j", "--format", "json"],
      {},
      /argument --format: report sends/,
    ],
  ];
  for (const [args, env, message] of cases) {
    const run = await runCli([...args, "--root", root("done-nocloud")], { env });
    assert.equal(run.code, 2, args.join(" "));
    assert.match(run.stderr, message);
  }
});
