// Certificates that renew without a restart (beyond upstream): with -secure, SIGHUP and SIGUSR1
// reload -cert/-key as they reload hooks, and with -hotreload a change of either file does; new connections get the
// new pair, a request in flight finishes on its connection, and a broken pair keeps the old one with an error in the
// log. Real TLS clients (node's OpenSSL) read the certificate each new connection is given.
import assert from "node:assert/strict";
import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { connect } from "node:tls";
import { fileURLToPath } from "node:url";
import { OUR_WEBHOOK } from "./support/binaries.js";
import { freePort } from "./support/free-port.js";
import { ServerGroup, type StartedServer } from "./support/server-group.js";

const PAIRS = fileURLToPath(new URL("../../test/fixtures/tls-reload/", import.meta.url));
const servers = new ServerGroup();
let dir: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "webhook-cert-reload-"));
  await writeFile(
    join(dir, "hooks.json"),
    JSON.stringify([
      {
        id: "slow",
        "execute-command": "/bin/sh",
        "pass-arguments-to-command": [
          { source: "string", name: "-c" },
          { source: "string", name: "sleep 1; echo done" },
        ],
        "include-command-output-in-response": true,
      },
    ]),
  );
});

after(async () => {
  await servers.stopAll();
  await rm(dir, { recursive: true, force: true });
});

/** Puts a pair (or a certificate with another pair's key) where the server reads -cert and -key. */
async function install(sub: string, pair: { cert: string; key: string }): Promise<void> {
  await copyFile(join(PAIRS, `${pair.cert}-cert.pem`), join(dir, sub, "cert.pem"));
  await copyFile(join(PAIRS, `${pair.key}-key.pem`), join(dir, sub, "key.pem"));
}

async function start(sub: string, extra: string[]): Promise<{ port: number; server: StartedServer }> {
  await mkdir(join(dir, sub), { recursive: true });
  await install(sub, { cert: "first", key: "first" });
  const port = await freePort();
  const args = ["-hooks", join(dir, "hooks.json"), "-ip", "127.0.0.1", "-port", String(port), "-verbose"];
  args.push("-secure", "-cert", join(dir, sub, "cert.pem"), "-key", join(dir, sub, "key.pem"), ...extra);
  const server = await servers.start(process.execPath, [OUR_WEBHOOK, ...args], {
    ready: "serving hooks on https://",
  });
  return { port, server };
}

/** The subject CN of the certificate a new TLS connection is given. */
function served(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, rejectUnauthorized: false });
    socket.on("secureConnect", () => {
      resolve(String(socket.getPeerCertificate().subject.CN));
      socket.destroy();
    });
    socket.on("error", reject);
  });
}

/** Waits until `check` holds (every 50 ms, 15 s at most). */
async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`timed out waiting for ${what}`);
}

/** A request on a connection of its own; resolves once the TLS connection is up, with the answer to come. */
function inFlight(port: number): Promise<{ answer: Promise<{ status: number; body: string; cn: string }> }> {
  return new Promise((resolveStarted, reject) => {
    const req = request({
      host: "127.0.0.1",
      port,
      path: "/hooks/slow",
      method: "POST",
      rejectUnauthorized: false,
      agent: false,
    });
    const answer = new Promise<{ status: number; body: string; cn: string }>((resolve) => {
      req.on("response", (res) => {
        let body = "";
        const cn = String((res.socket as import("node:tls").TLSSocket).getPeerCertificate().subject.CN);
        res.on("data", (c: Buffer) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body, cn }));
      });
    });
    req.on("error", reject);
    req.on("socket", (socket) => socket.once("secureConnect", () => resolveStarted({ answer })));
    req.end();
  });
}

test("SIGHUP and SIGUSR1 reload the pair for new connections; a request in flight finishes; a broken pair keeps the old one", async () => {
  const { port, server } = await start("signals", []);
  assert.equal(await served(port), "127.0.0.1-first");
  const flight = await inFlight(port);
  await install("signals", { cert: "second", key: "second" });
  server.child.kill("SIGHUP");
  await until("the reload", () => server.log().includes("reloaded TLS certificate"));
  assert.equal(await served(port), "127.0.0.1-second");
  assert.deepEqual(await flight.answer, { status: 200, body: "done\n", cn: "127.0.0.1-first" });

  // A certificate with another pair's key: refused, logged, the current pair stays.
  await install("signals", { cert: "first", key: "second" });
  server.child.kill("SIGUSR1");
  await until("the refusal", () => server.log().includes("error reloading TLS certificate"));
  assert.match(
    server.log(),
    /error reloading TLS certificate .*keeping the previous pair: tls: .*key values mismatch/,
  );
  assert.equal(await served(port), "127.0.0.1-second");

  // A key file gone: the same.
  await rm(join(dir, "signals", "key.pem"));
  const before = server.log().split("error reloading").length;
  server.child.kill("SIGHUP");
  await until("the second refusal", () => server.log().split("error reloading").length > before);
  assert.match(server.log(), /keeping the previous pair: open .*key\.pem: no such file or directory/);
  assert.equal(await served(port), "127.0.0.1-second");
});

test("-hotreload reloads the pair when its files change", async () => {
  const { port, server } = await start("watched", ["-hotreload"]);
  assert.equal(await served(port), "127.0.0.1-first");
  await install("watched", { cert: "second", key: "second" });
  await until("the new certificate", async () => (await served(port)) === "127.0.0.1-second");
  assert.match(server.log(), /TLS certificate or key modified/);
});
