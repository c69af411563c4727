// -trusted-proxies behind a real reverse proxy: Debian's nginx in front of our webhook, set up as its docs say
// (`proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for`, or an RFC 7239 `Forwarded` header of its own).
// Clients connect to nginx from other loopback addresses (127.0.0.3, 127.0.0.4), so the address nginx reports differs
// from the proxy's own (127.0.0.1, the one trusted).
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { OUR_WEBHOOK } from "./support/binaries.js";
import { freePort } from "./support/free-port.js";
import { startNginx, stopNginx } from "./support/nginx.js";
import { ServerGroup } from "./support/server-group.js";

const servers = new ServerGroup();
let dir: string;
let nginx: ChildProcess | undefined;
let proxyPort: number;
let directPort: number;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "webhook-nginx-"));
  const hooksFile = join(dir, "hooks.json");
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
        "trigger-rule": { match: { type: "ip-whitelist", "ip-range": "127.0.0.3/32" } },
      },
    ]),
  );
  directPort = await freePort();
  await servers.start(
    process.execPath,
    [OUR_WEBHOOK, "-hooks", hooksFile, "-ip", "127.0.0.1", "-port", String(directPort), "-verbose"].concat([
      "-trusted-proxies",
      "127.0.0.1/32",
    ]),
    { ready: "serving hooks on" },
  );
  proxyPort = await freePort();
  const upstream = `http://127.0.0.1:${directPort}`;
  nginx = await startNginx(dir, {
    port: proxyPort,
    locations: `    location /hooks/ {
      proxy_pass ${upstream};
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    }
    location /rfc7239/ {
      proxy_pass ${upstream}/hooks/;
      proxy_set_header Forwarded "for=$remote_addr;proto=$scheme";
      proxy_set_header X-Forwarded-For "";
    }`,
  });
  for (let i = 0; ; i++) {
    const up = await send({ path: "/hooks/who", from: "127.0.0.3" }).then(
      (a) => a.status === 200,
      () => false,
    );
    if (up) break;
    if (i > 200 || nginx.exitCode !== null) throw new Error("nginx did not start");
    await new Promise((r) => setTimeout(r, 50));
  }
});

after(async () => {
  await stopNginx(nginx);
  await servers.stopAll();
  await rm(dir, { recursive: true, force: true });
});

/** A POST from a chosen local address, to nginx (or straight to webhook). */
function send(options: {
  path: string;
  from: string;
  headers?: Record<string, string>;
  port?: number;
}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: options.port ?? proxyPort,
        path: options.path,
        method: "POST",
        localAddress: options.from,
        headers: options.headers ?? {},
        timeout: 10_000,
        agent: false,
      },
      (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: text.trim() }));
      },
    );
    req.on("timeout", () => req.destroy(new Error("timed out")));
    req.on("error", reject);
    req.end();
  });
}

test("behind nginx's X-Forwarded-For the client's own address is what remote-addr and ip-whitelist see", async () => {
  assert.deepEqual(await send({ path: "/hooks/who", from: "127.0.0.3" }), { status: 200, text: "127.0.0.3" });
  assert.deepEqual(await send({ path: "/hooks/allowed", from: "127.0.0.3" }), { status: 200, text: "ran" });
  assert.deepEqual(await send({ path: "/hooks/allowed", from: "127.0.0.4" }), {
    status: 200,
    text: "Hook rules were not satisfied.",
  });
});

test("a client forging X-Forwarded-For through nginx gets its real address, not the forged one", async () => {
  const forged = { "X-Forwarded-For": "127.0.0.3" };
  assert.deepEqual(await send({ path: "/hooks/who", from: "127.0.0.4", headers: forged }), {
    status: 200,
    text: "127.0.0.4",
  });
  assert.equal(
    (await send({ path: "/hooks/allowed", from: "127.0.0.4", headers: forged })).text,
    "Hook rules were not satisfied.",
  );
});

test("behind nginx's RFC 7239 Forwarded header the client is read from for=", async () => {
  assert.deepEqual(await send({ path: "/rfc7239/who", from: "127.0.0.3" }), {
    status: 200,
    text: "127.0.0.3",
  });
  assert.deepEqual(await send({ path: "/rfc7239/allowed", from: "127.0.0.3" }), { status: 200, text: "ran" });
  // A forged Forwarded of the client's is replaced by nginx's.
  const forged = { Forwarded: "for=127.0.0.3" };
  assert.deepEqual(await send({ path: "/rfc7239/who", from: "127.0.0.4", headers: forged }), {
    status: 200,
    text: "127.0.0.4",
  });
});

test("a client reaching webhook directly (not through a trusted proxy) cannot pick its address", async () => {
  const who = await send({
    path: "/hooks/who",
    from: "127.0.0.4",
    port: directPort,
    headers: { "X-Forwarded-For": "127.0.0.3", Forwarded: "for=127.0.0.3" },
  });
  assert.match(who.text, /^127\.0\.0\.4:\d+$/);
});
