import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { FIXTURES, runCli } from "./support/run-cli.js";
import { startServer } from "./support/start-server.js";

// `report --to` against the real receivers from Debian's packages: prometheus-pushgateway (1.5.1 on bookworm)
// plain and over TLS with its exporter-toolkit web config, and adnanh/webhook 2.8 with a payload-hmac-sha256 hook.

const PUSHGATEWAY = "/usr/bin/prometheus-pushgateway";
const WEBHOOK = "/usr/bin/webhook";
const TLS = path.join(FIXTURES, "tls");
const root = (name: string): string => path.join(FIXTURES, name, "root");

/** A free 127.0.0.1 port (bound once and released): Debian's Pushgateway logs the port it was given, not the one it got. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(tmpdir(), "bootstatus-peers-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test("pushgateway:// to Debian's prometheus-pushgateway: the grouping key and samples as it serves them", async (t) => {
  assert.ok(existsSync(PUSHGATEWAY), `${PUSHGATEWAY} is missing (apt-get install prometheus-pushgateway)`);
  const port = await freePort();
  const server = startServer(
    PUSHGATEWAY,
    [
      `--web.listen-address=127.0.0.1:${port}`,
      // In memory only: Debian builds it with /var/lib/prometheus/pushgateway.data as the default, a file every
      // run on the machine would share (and fill).
      "--persistence.file=",
    ],
    /(Listening on)|(listen_address)/,
  );
  t.after(() => server.child.kill());
  await server.ready;
  const run = await runCli([
    "report",
    "--to",
    `pushgateway://127.0.0.1:${port}/job/bootstatus/instance/vm1`,
    "--timeout",
    "20",
    "--root",
    root("degraded-done"),
  ]);
  assert.equal(run.code, 2, run.stderr);
  const scraped = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  assert.match(
    scraped,
    /\nbootstatus_info\{boot_status_code="enabled-by-generator",extended_status="degraded done",instance="vm1",job="bootstatus",status="done"\} 1\n/,
  );
  assert.match(scraped, /\nbootstatus_errors\{instance="vm1",job="bootstatus"\} 0\n/);
});

test("pushgateways:// to Debian's prometheus-pushgateway with TLS and basic auth (its web config)", async (t) => {
  assert.ok(existsSync(PUSHGATEWAY), `${PUSHGATEWAY} is missing (apt-get install prometheus-pushgateway)`);
  const dir = tempDir(t);
  // bcrypt of "pw" (cost 10), the hash exporter-toolkit checks.
  const hash = "$2b$10$FCJ7Xp1HNl94i9Db6ScoFe/NoCJ./gsBTd1jl0VFjr/us03wZrv8O";
  writeFileSync(
    path.join(dir, "web.yml"),
    `tls_server_config:\n  cert_file: ${path.join(TLS, "server.pem")}\n  key_file: ${path.join(TLS, "server-key.pem")}\n` +
      `basic_auth_users:\n  boot: ${hash}\n`,
  );
  const port = await freePort();
  const server = startServer(
    PUSHGATEWAY,
    [
      `--web.listen-address=127.0.0.1:${port}`,
      // In memory only: Debian builds it with /var/lib/prometheus/pushgateway.data as the default, a file every
      // run on the machine would share (and fill).
      "--persistence.file=",
      `--web.config.file=${path.join(dir, "web.yml")}`,
    ],
    /TLS is enabled|(http2=)/,
  );
  t.after(() => server.child.kill());
  await server.ready;
  const env = { NODE_EXTRA_CA_CERTS: path.join(TLS, "ca.pem") };
  const run = await runCli(
    [
      "report",
      "--to",
      `pushgateways://boot:pw@127.0.0.1:${port}/job/bootstatus`,
      "--timeout",
      "20",
      "--root",
      root("done-nocloud"),
    ],
    { env },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /HTTP 200 \(attempt 1\)/);
  const wrong = await runCli(
    [
      "report",
      "--to",
      `pushgateways://boot:nope@127.0.0.1:${port}/job/bootstatus`,
      "--timeout",
      "20",
      "--root",
      root("done-nocloud"),
    ],
    { env },
  );
  assert.equal(wrong.code, 4);
  assert.match(wrong.stderr, /\(attempt 1\): HTTP 401/);
});

test("https:// to Debian's webhook: its payload-hmac-sha256 rule accepts the signed report", async (t) => {
  assert.ok(existsSync(WEBHOOK), `${WEBHOOK} is missing (apt-get install webhook)`);
  const dir = tempDir(t);
  const out = path.join(dir, "payload.json");
  const secret = "shared-with-the-hook";
  writeFileSync(
    path.join(dir, "hooks.json"),
    JSON.stringify([
      {
        id: "boot-report",
        "execute-command": process.execPath,
        "pass-arguments-to-command": [
          { source: "string", name: "-e" },
          { source: "string", name: "require('node:fs').writeFileSync(process.argv[1], process.argv[2])" },
          { source: "string", name: out },
          { source: "entire-payload" },
        ],
        "trigger-rule": {
          match: {
            type: "payload-hmac-sha256",
            secret,
            parameter: { source: "header", name: "X-Hub-Signature-256" },
          },
        },
      },
    ]),
  );
  const port = await freePort();
  const server = startServer(
    WEBHOOK,
    [
      "-hooks",
      path.join(dir, "hooks.json"),
      "-ip",
      "127.0.0.1",
      "-port",
      String(port),
      "-verbose",
      "-secure",
      "-cert",
      path.join(TLS, "server.pem"),
      "-key",
      path.join(TLS, "server-key.pem"),
    ],
    /serving hooks on/,
  );
  t.after(() => server.child.kill());
  await server.ready;
  const run = await runCli(
    [
      "report",
      "--to",
      `https://127.0.0.1:${port}/hooks/boot-report`,
      "--timeout",
      "20",
      "--root",
      root("error-done"),
    ],
    { env: { BOOTSTATUS_REPORT_SECRET: secret, NODE_EXTRA_CA_CERTS: path.join(TLS, "ca.pem") } },
  );
  assert.equal(run.code, 1, run.stderr);
  for (let i = 0; i < 200 && !existsSync(out); i++) await new Promise((r) => setTimeout(r, 50));
  const payload = JSON.parse(readFileSync(out, "utf8")) as { status: { status: string } };
  assert.equal(payload.status.status, "error");
});
