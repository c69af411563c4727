// The `-secure -cert -key` cases of test/tls.test.ts (ours alone) and test/tls.peers.test.ts (ours beside Debian's
// webhook 2.8.0, every observation compared): HTTPS requests, ALPN, plain HTTP on the TLS port and `-tls-min-version`,
// with the test-only certificate of test/fixtures/tls.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { request } from "node:https";
import { connect as netConnect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { connect as tlsConnect } from "node:tls";
import { fileURLToPath } from "node:url";
import { OUR_WEBHOOK as OURS, PEER_WEBHOOK as PEER } from "./binaries.js";
import { freePort } from "./free-port.js";
import { ServerGroup } from "./server-group.js";

const FIXTURES = fileURLToPath(new URL("../../../test/fixtures/tls/", import.meta.url));
/** Which server: Debian's webhook or ours. */
export type Side = "peer" | "ours";

let dir: string;
let cert: Buffer;
const servers = new ServerGroup();

function command(side: Side, args: string[]): [string, string[]] {
  return side === "peer" ? [PEER, args] : [process.execPath, [OURS, ...args]];
}

async function start(side: Side, extra: string[] = []): Promise<number> {
  const port = await freePort();
  const [cmd, argv] = command(side, [
    ...["-hooks", join(dir, "hooks.json"), "-ip", "127.0.0.1", "-port", String(port), "-verbose", "-secure"],
    ...["-cert", join(FIXTURES, "cert.pem"), "-key", join(FIXTURES, "key.pem"), ...extra],
  ]);
  await servers.start(cmd, argv, { cwd: dir, ready: "serving hooks on https://" });
  return port;
}

async function startEach(
  sides: readonly Side[],
  extra: string[] = [],
): Promise<Partial<Record<Side, number>>> {
  const ports: Partial<Record<Side, number>> = {};
  for (const side of sides) ports[side] = await start(side, extra);
  return ports;
}

function get(
  port: number,
  path: string,
): Promise<{ status: number; body: string; type: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method: "POST", ca: cert, agent: false }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body, type: res.headers["content-type"] }));
    });
    req.on("error", reject);
    req.end("{}");
  });
}

/** The TLS handshake alone: the negotiated protocol and ALPN, or the error's code. */
function handshake(
  port: number,
  options: { minVersion?: "TLSv1.3"; maxVersion?: "TLSv1.2" },
): Promise<string> {
  return new Promise((resolve) => {
    const socket = tlsConnect({
      host: "127.0.0.1",
      port,
      ca: cert,
      ALPNProtocols: ["h2", "http/1.1"],
      ...options,
    });
    socket.on("secureConnect", () => {
      resolve(`${socket.getProtocol()} ${socket.alpnProtocol}`);
      socket.destroy();
    });
    socket.on("error", () => resolve("handshake failed"));
  });
}

/** Raw bytes over TLS: the answer (Date blanked) until the server closes or goes quiet for 300 ms. */
function rawTls(port: number, request: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = tlsConnect({ host: "127.0.0.1", port, ca: cert }, () => socket.write(request));
    let data = "";
    let quiet: NodeJS.Timeout | undefined;
    const done = (how: string) => {
      clearTimeout(quiet);
      socket.destroy();
      resolve(`${data.replace(/^Date: .*$/gm, "Date: -")}${how}`);
    };
    socket.on("data", (c: Buffer) => {
      data += c.toString("latin1");
      clearTimeout(quiet);
      quiet = setTimeout(() => done(" [open]"), 300);
    });
    socket.on("end", () => done(" [closed]"));
    socket.on("error", () => done(" [error]"));
  });
}

function plainHttp(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = netConnect(port, "127.0.0.1", () => socket.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
    let data = "";
    socket.on("data", (c: Buffer) => (data += c.toString("latin1")));
    socket.on("close", () => resolve(data));
    socket.on("error", () => undefined);
  });
}

/** Declares the TLS tests over `sides` (`["ours"]`, or `["peer", "ours"]` to compare). */
export function tlsTests(sides: readonly Side[]): void {
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "webhook-tls-"));
    cert = await readFile(join(FIXTURES, "cert.pem"));
    await writeFile(
      join(dir, "hooks.json"),
      JSON.stringify([
        {
          id: "echo",
          "execute-command": "/bin/echo",
          "include-command-output-in-response": true,
          "pass-arguments-to-command": [{ source: "string", name: "over tls" }],
        },
      ]),
    );
  });

  after(async () => {
    await servers.stopAll();
    await rm(dir, { recursive: true, force: true });
  });

  test("https:// serves / and hooks over HTTP/1.1 only, TLS 1.3 by default", async () => {
    const ports = await startEach(sides);
    const seen: Partial<Record<Side, unknown[]>> = {};
    for (const side of sides) {
      const port = ports[side] as number;
      seen[side] = [
        await get(port, "/"),
        await get(port, "/hooks/echo"),
        await get(port, "/hooks/nope"),
        await handshake(port, {}),
        await handshake(port, { maxVersion: "TLSv1.2" }),
        await plainHttp(port),
        await rawTls(port, "GET /hooks/echo HTTP/1.1\r\nHost: x\r\n\r\n"),
        await rawTls(port, "GET /hooks/nope HTTP/1.0\r\n\r\n"),
      ];
    }
    if (seen.peer !== undefined) assert.deepEqual(seen.ours, seen.peer);
    assert.deepEqual(seen.ours, [
      { status: 200, body: "OK", type: "text/plain; charset=utf-8" },
      { status: 200, body: "over tls\n", type: "text/plain; charset=utf-8" },
      { status: 404, body: "Hook not found.", type: "text/plain; charset=utf-8" },
      "TLSv1.3 http/1.1",
      "TLSv1.2 http/1.1",
      "HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n",
      "HTTP/1.1 200 OK\r\nDate: -\r\nContent-Length: 9\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nover tls\n [open]",
      "HTTP/1.0 404 Not Found\r\nDate: -\r\nContent-Length: 15\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nHook not found. [closed]",
    ]);
  });

  test("a failed handshake is logged as Go's server logs it (a client that leaves: EOF)", async () => {
    for (const side of sides) {
      const port = await freePort();
      const [cmd, argv] = command(side, [
        ...[
          "-hooks",
          join(dir, "hooks.json"),
          "-ip",
          "127.0.0.1",
          "-port",
          String(port),
          "-verbose",
          "-secure",
        ],
        ...["-cert", join(FIXTURES, "cert.pem"), "-key", join(FIXTURES, "key.pem")],
      ]);
      const server = await servers.start(cmd, argv, { cwd: dir, ready: "serving hooks on https://" });
      // Each client half-closes after its bytes; one whose record never completes is left open by both servers
      // (Go's handshake waits for the rest), so it is dropped after a second.
      const send = (bytes: string) =>
        new Promise<void>((resolve) => {
          const socket = netConnect(port, "127.0.0.1", () => socket.end(Buffer.from(bytes, "latin1")));
          const timer = setTimeout(() => socket.destroy(), 1000);
          socket.on("close", () => {
            clearTimeout(timer);
            resolve();
          });
          socket.on("error", () => undefined);
        });
      await send("");
      await send("\x16\x03\x01\x00\x05hello");
      const lines = () => server.log().match(/ http: TLS handshake error from 127\.0\.0\.1:\d+: .*/g) ?? [];
      for (let waited = 0; lines().length < 2 && waited < 5000; waited += 50)
        await new Promise((r) => setTimeout(r, 50));
      const seen = lines();
      assert.equal(seen.length, 2, `${side}: ${server.log()}`);
      // Only the EOF is worded alike: other handshake errors come from Go's crypto/tls there, OpenSSL here.
      assert.match(seen[0] as string, /: EOF$/, side);
    }
  });

  test("-tls-min-version 1.3 refuses a TLS 1.2 client", async () => {
    const extra = ["-tls-min-version", "1.3"];
    const ports = await startEach(sides, extra);
    for (const side of sides) {
      assert.equal(
        await handshake(ports[side] as number, { maxVersion: "TLSv1.2" }),
        "handshake failed",
        side,
      );
      assert.equal(
        await handshake(ports[side] as number, { minVersion: "TLSv1.3" }),
        "TLSv1.3 http/1.1",
        side,
      );
      assert.equal((await get(ports[side] as number, "/hooks/echo")).body, "over tls\n", side);
    }
  });

  test("an unknown -tls-min-version with -secure exits 1", async () => {
    for (const side of sides) {
      const port = await freePort();
      const [cmd, argv] = command(side, [
        ...["-hooks", join(dir, "hooks.json"), "-ip", "127.0.0.1", "-port", String(port), "-secure"],
        ...[
          "-cert",
          join(FIXTURES, "cert.pem"),
          "-key",
          join(FIXTURES, "key.pem"),
          "-tls-min-version",
          "9.9",
        ],
      ]);
      const code = await new Promise<number | null>((resolve) => {
        const child = spawn(cmd, argv, { cwd: dir, stdio: "ignore" });
        child.on("error", () => resolve(null));
        child.on("exit", resolve);
      });
      assert.equal(code, 1, side);
    }
  });
}
