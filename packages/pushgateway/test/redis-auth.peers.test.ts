// --storage.redis-url against a real redis-server (Debian's redis-server, built with TLS) that takes only TLS and an
// ACL user: `rediss://` with the server certificate checked against the host name, the user and password from the
// URL or from --storage.redis-password-file, a wrong password or host name refused (503, not ready), and the
// password never shown by /api/v1/status or the log. Certificates are made by openssl for this test only.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { freePort, GATEWAY_BIN, type Started, startProcess, stopAll } from "./support/processes.js";
import { REDIS_SERVER } from "./support/redis-server.js";

// No space: the ACL rule is split at spaces. "/" and "@" must be percent-encoded in the URL.
const PASSWORD = "s3cret/p@ss";
let dir: string;
let port: number;

/** A CA and a server certificate for `localhost` only (not 127.0.0.1), so the host-name check can be seen. */
function makeCertificates(into: string): void {
  const openssl = (...args: string[]) => execFileSync("/usr/bin/openssl", args, { cwd: into, stdio: "pipe" });
  openssl(
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-days",
    "2",
    "-subj",
    "/CN=test CA",
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
  );
  openssl(
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-subj",
    "/CN=localhost",
    "-keyout",
    "server.key",
    "-out",
    "server.csr",
  );
  writeFileSync(join(into, "san.ext"), "subjectAltName=DNS:localhost\n");
  openssl(
    "x509",
    "-req",
    "-in",
    "server.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-days",
    "2",
    "-extfile",
    "san.ext",
    "-out",
    "server.pem",
  );
}

/** Starts the gateway with the test CA trusted (NODE_EXTRA_CA_CERTS is read at start-up). */
async function gateway(args: string[]): Promise<{ started: Started; base: string }> {
  const webPort = await freePort();
  const previous = process.env.NODE_EXTRA_CA_CERTS;
  process.env.NODE_EXTRA_CA_CERTS = join(dir, "ca.pem");
  try {
    const started = await startProcess(
      process.execPath,
      [GATEWAY_BIN, `--web.listen-address=127.0.0.1:${webPort}`, ...args],
      { ready: /Listening on/ },
    );
    return { started, base: `http://127.0.0.1:${webPort}` };
  } finally {
    if (previous === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
    else process.env.NODE_EXTRA_CA_CERTS = previous;
  }
}

async function ready(base: string, deadlineMs: number): Promise<number> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const status = (await fetch(`${base}/-/ready`, { signal: AbortSignal.timeout(5000) })).status;
    if (status === 200 || Date.now() > end) return status;
    await new Promise((r) => setTimeout(r, 100));
  }
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "pg-redis-tls-"));
  makeCertificates(dir);
  writeFileSync(join(dir, "password"), `${PASSWORD}\n`);
  port = await freePort();
  await startProcess(
    REDIS_SERVER,
    [
      "--port",
      "0",
      "--tls-port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--tls-cert-file",
      join(dir, "server.pem"),
      "--tls-key-file",
      join(dir, "server.key"),
      "--tls-ca-cert-file",
      join(dir, "ca.pem"),
      "--tls-auth-clients",
      "no",
      "--save",
      "",
      "--appendonly",
      "no",
      // Each word of an ACL rule is its own argument (one argument with spaces is read as one quoted word).
      "--user",
      "default",
      "off",
      "--user",
      "gateway",
      "on",
      `>${PASSWORD}`,
      "~*",
      "&*",
      "+@all",
    ],
    { ready: /Ready to accept connections/, readyOn: "stdout" },
  );
});

after(async () => {
  await stopAll();
  rmSync(dir, { recursive: true, force: true });
});

test("rediss:// with an ACL user: password in the URL on one replica, from the file on another; one gateway", async () => {
  const inUrl = await gateway([
    `--storage.redis-url=rediss://gateway:${encodeURIComponent(PASSWORD)}@localhost:${port}/0`,
  ]);
  const fromFile = await gateway([
    `--storage.redis-url=rediss://gateway@localhost:${port}/0`,
    `--storage.redis-password-file=${join(dir, "password")}`,
  ]);
  assert.equal(await ready(inUrl.base, 10_000), 200, inUrl.started.log());
  assert.equal(await ready(fromFile.base, 10_000), 200, fromFile.started.log());
  const put = await fetch(`${inUrl.base}/metrics/job/tls`, { method: "PUT", body: "over_tls 1\n" });
  assert.equal(put.status, 200, await put.text());
  assert.match(
    await (await fetch(`${fromFile.base}/metrics`)).text(),
    /^over_tls\{instance="",job="tls"\} 1$/m,
  );

  const status = await (await fetch(`${inUrl.base}/api/v1/status`)).text();
  assert.match(status, /rediss:\/\/gateway:xxxxx@localhost/);
  for (const g of [inUrl, fromFile]) {
    assert.ok(!status.includes("s3cret") && !g.started.log().includes("s3cret"), "the password was shown");
  }
});

test("a wrong password, or a host name the certificate does not name: not ready, pushes 503, nothing stored", async () => {
  const wrongPassword = await gateway([`--storage.redis-url=rediss://gateway:nope@localhost:${port}/0`]);
  // The certificate names localhost only; 127.0.0.1 fails the host-name check.
  const wrongHost = await gateway([
    `--storage.redis-url=rediss://gateway:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}/0`,
  ]);
  // The answers say why: Redis's WRONGPASS, node's certificate check.
  for (const [g, why] of [
    [wrongPassword, /WRONGPASS/],
    [wrongHost, /does not match certificate's altnames/],
  ] as const) {
    const readiness = await fetch(`${g.base}/-/ready`, { signal: AbortSignal.timeout(5000) });
    assert.equal(readiness.status, 503);
    assert.match(await readiness.text(), why);
    const push = await fetch(`${g.base}/metrics/job/refused`, { method: "PUT", body: "refused 1\n" });
    assert.equal(push.status, 503);
    const body = await push.text();
    assert.match(
      body,
      /^the change was not stored: Redis at rediss:\/\/(localhost|127\.0\.0\.1):\d+\/0 is unreachable/,
    );
    assert.match(body, why);
  }
  const good = await gateway([
    `--storage.redis-url=rediss://gateway:${encodeURIComponent(PASSWORD)}@localhost:${port}/0`,
  ]);
  assert.equal(await ready(good.base, 10_000), 200);
  assert.doesNotMatch(await (await fetch(`${good.base}/metrics`)).text(), /^refused/m);
});
