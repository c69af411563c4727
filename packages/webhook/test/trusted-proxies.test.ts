// -trusted-proxies through the real interface: node's fetch (undici) as the client, the built server. Only a
// connection from a trusted proxy has its X-Forwarded-For / Forwarded read; rules, the remote-addr source and the log
// see the client, forged entries left of the proxy's own change nothing, and unreadable headers fall back.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { OUR_WEBHOOK } from "./support/binaries.js";
import { freePort } from "./support/free-port.js";
import { ServerGroup, type StartedServer } from "./support/server-group.js";

const servers = new ServerGroup();
let dir: string;
let hooksFile: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "webhook-proxies-"));
  hooksFile = join(dir, "hooks.json");
  await writeFile(
    hooksFile,
    JSON.stringify([
      {
        id: "who",
        "execute-command": "/bin/echo",
        "include-command-output-in-response": true,
        "pass-arguments-to-command": [{ source: "request", name: "remote-addr" }],
      },
      {
        id: "allowed",
        "execute-command": "/bin/echo",
        "include-command-output-in-response": true,
        "pass-arguments-to-command": [{ source: "string", name: "ran" }],
        "trigger-rule": { match: { type: "ip-whitelist", "ip-range": "203.0.113.0/24 2001:db8::/32" } },
      },
    ]),
  );
});

after(async () => {
  await servers.stopAll();
  await rm(dir, { recursive: true, force: true });
});

async function start(extra: string[]): Promise<{ base: string; server: StartedServer }> {
  const port = await freePort();
  const args = ["-hooks", hooksFile, "-ip", "127.0.0.1", "-port", String(port), "-verbose", ...extra];
  const server = await servers.start(process.execPath, [OUR_WEBHOOK, ...args], { ready: "serving hooks on" });
  return { base: `http://127.0.0.1:${port}`, server };
}

async function ask(base: string, id: string, headers: Record<string, string>) {
  const answer = await fetch(`${base}/hooks/${id}`, { method: "POST", headers });
  return { status: answer.status, text: (await answer.text()).trim() };
}

test("without -trusted-proxies (upstream's behaviour) forwarding headers change nothing", async () => {
  const { base } = await start([]);
  const who = await ask(base, "who", { "X-Forwarded-For": "203.0.113.7", Forwarded: "for=203.0.113.7" });
  assert.match(who.text, /^127\.0\.0\.1:\d+$/);
  assert.deepEqual(await ask(base, "allowed", { "X-Forwarded-For": "203.0.113.7" }), {
    status: 200,
    text: "Hook rules were not satisfied.",
  });
});

test("from a trusted proxy the client is the rightmost untrusted address: rules, remote-addr and the log see it", async () => {
  const { base, server } = await start(["-trusted-proxies", "127.0.0.1,10.0.0.0/8"]);
  assert.deepEqual(await ask(base, "who", { "X-Forwarded-For": "203.0.113.7" }), {
    status: 200,
    text: "203.0.113.7",
  });
  assert.deepEqual(await ask(base, "allowed", { "X-Forwarded-For": "203.0.113.7" }), {
    status: 200,
    text: "ran",
  });
  assert.match(server.log(), /incoming HTTP POST request from 203\.0\.113\.7\n/);
  // A client that forges an entry: the proxy appends the real address, which is the one taken.
  assert.deepEqual(await ask(base, "allowed", { "X-Forwarded-For": "203.0.113.7, 198.51.100.9" }), {
    status: 200,
    text: "Hook rules were not satisfied.",
  });
  // Trusted hops on the right are skipped.
  const chain = { "X-Forwarded-For": "198.51.100.9, 203.0.113.7, 10.0.0.5" };
  assert.deepEqual(await ask(base, "who", chain), { status: 200, text: "203.0.113.7" });
  // RFC 7239 Forwarded, an IPv6 node quoted with its port.
  const forwarded = { Forwarded: 'for=198.51.100.9, for="[2001:db8::1]:4711";proto=https' };
  assert.deepEqual(await ask(base, "who", forwarded), { status: 200, text: "2001:db8::1" });
  assert.deepEqual(await ask(base, "allowed", forwarded), { status: 200, text: "ran" });
  // Headers that cannot be read with certainty fall back to the socket's address.
  for (const headers of [
    { "X-Forwarded-For": "203.0.113.7, not-an-address" },
    { Forwarded: "for=unknown" },
    { Forwarded: 'for="203.0.113.7' },
    { Forwarded: "for=198.51.100.9", "X-Forwarded-For": "203.0.113.7" },
  ]) {
    const who = await ask(base, "who", headers);
    assert.match(who.text, /^127\.0\.0\.1:\d+$/, JSON.stringify(headers));
    assert.equal((await ask(base, "allowed", headers)).text, "Hook rules were not satisfied.");
  }
});

test("a peer that is not a trusted proxy cannot choose its address with the headers", async () => {
  const { base } = await start(["-trusted-proxies", "10.0.0.0/8, ::1"]);
  const who = await ask(base, "who", { "X-Forwarded-For": "203.0.113.7", Forwarded: "for=203.0.113.7" });
  assert.match(who.text, /^127\.0\.0\.1:\d+$/);
  assert.equal(
    (await ask(base, "allowed", { "X-Forwarded-For": "203.0.113.7" })).text,
    "Hook rules were not satisfied.",
  );
});

test("a -trusted-proxies value that is no address or CIDR is refused at start as a usage error", () => {
  const run = spawnSync(process.execPath, [OUR_WEBHOOK, "-trusted-proxies", "10.0.0.0/8,proxy.local"], {
    encoding: "utf8",
    timeout: 15000,
  });
  assert.equal(run.status, 2);
  assert.match(
    run.stderr,
    /^invalid value "10\.0\.0\.0\/8,proxy\.local" for flag -trusted-proxies: "proxy\.local" is not an IP address or CIDR \(as 10\.0\.0\.0\/8 or ::1\)\nUsage of webhook:/,
  );
});
