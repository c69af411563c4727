// The request-smuggling and starvation battery of test/wire-safety.test.ts (ours alone, against the answers Debian's
// webhook 2.8.0 gave, recorded here) and test/wire-safety.peers.test.ts (ours beside the peer): bytes that follow a
// request Go closes on, chunked bodies Go ends early, requests Go refuses, and clients that send forever. For each
// case the answers must be Go's (Date left out), and the hook's command must run exactly as often as Go runs it:
// once per `200 OK` (the hook answers 200 when its command ran; `sig` answers 500 without running).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { test } from "node:test";

/** Two hooks: `size` prints the body's length and records a run; `sig` needs a signature no case has. */
export function safetyHooks(): unknown[] {
  const record = 'printf %s "$BODY" | wc -c; echo ran >> "$RAN_FILE"';
  return [
    {
      id: "size",
      "execute-command": "/bin/sh",
      "include-command-output-in-response": true,
      "pass-arguments-to-command": [
        { source: "string", name: "-c" },
        { source: "string", name: record },
      ],
      "pass-environment-to-command": [{ source: "raw-request-body", envname: "BODY" }],
    },
    {
      id: "sig",
      "execute-command": "/bin/sh",
      "include-command-output-in-response": true,
      "pass-arguments-to-command": [
        { source: "string", name: "-c" },
        { source: "string", name: 'echo ran >> "$RAN_FILE"' },
      ],
      "trigger-rule": {
        match: { type: "payload-hmac-sha256", secret: "s", parameter: { source: "header", name: "X-Sig" } },
      },
    },
    { id: "get-only", "execute-command": "/bin/true", "http-methods": ["GET"] },
  ];
}

/** A request hidden in the body of the cases below: if it is ever read as a request, `size` runs. */
const HIDDEN = "POST /hooks/size HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nzz";

/** Name, the bytes sent in one write, and Go's answer (Date lines left out) with how the connection ended. */
export const SAFETY_CASES: readonly (readonly [string, string, string])[] = [
  [
    "conn-close",
    "POST /hooks/size HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 1\r\n\r\naPOST /hooks/size HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nzz",
    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n1\n [closed]",
  ],
  [
    "http10",
    "POST /hooks/size HTTP/1.0\r\nContent-Length: 1\r\n\r\naPOST /hooks/size HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nzz",
    "HTTP/1.0 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n1\n [closed]",
  ],
  [
    "bad-escape",
    "POST /hooks/si%zze HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\naPOST /hooks/size HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nzz",
    "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request [closed]",
  ],
  [
    "expect-unknown",
    "POST /hooks/size HTTP/1.1\r\nHost: x\r\nExpect: foo\r\nContent-Length: 1\r\n\r\naPOST /hooks/size HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nzz",
    "HTTP/1.1 417 Expectation Failed\r\nConnection: close\r\nContent-Length: 0\r\n\r\n [closed]",
  ],
  [
    "chunk17",
    "POST /hooks/size HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n00000000000000003\r\nabc\r\n0\r\n\r\nPOST /hooks/size HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nzz",
    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n0\n [closed]",
  ],
  [
    "chunk16",
    "POST /hooks/size HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0000000000000003\r\nabc\r\n0\r\n\r\nPOST /hooks/size HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nzz",
    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n3\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n2\n [open]",
  ],
  [
    "ws-before-ext",
    "POST /hooks/size HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3 ;e\r\nabc\r\n0\r\n\r\nPOST /hooks/size HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nzz",
    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n0\n [closed]",
  ],
  [
    "ws-after-size",
    "POST /hooks/size HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3 \r\nabc\r\n0\r\n\r\nPOST /hooks/size HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nzz",
    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n3\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n2\n [open]",
  ],
  [
    "trailer-nocolon",
    "POST /hooks/size HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nbad\r\n\r\nPOST /hooks/size HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nzz",
    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n3\n [closed]",
  ],
  [
    "trailer-ok",
    "POST /hooks/size HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nA: b\r\n\r\nPOST /hooks/size HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nzz",
    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n3\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n2\n [open]",
  ],
  [
    "long-ext",
    `POST /hooks/size HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3;${"e".repeat(5000)}\r\nabc\r\n0\r\n\r\nPOST /hooks/size HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nzz`,
    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n0\n [closed]",
  ],
  [
    "ext-4000",
    `POST /hooks/size HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3;${"e".repeat(4000)}\r\nabc\r\n0\r\n\r\nPOST /hooks/size HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nzz`,
    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n3\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n2\n [open]",
  ],
  [
    "empty-size",
    "POST /hooks/size HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n\r\nabc\r\n0\r\n\r\nPOST /hooks/size HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nzz",
    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n0\n [closed]",
  ],
  [
    "bad-data-crlf",
    "POST /hooks/size HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n0\r\n\r\nPOST /hooks/size HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nzz",
    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n3\n [closed]",
  ],
  [
    "two-hosts",
    "POST /hooks/size HTTP/1.1\r\nHost: x\r\nHost: y\r\nContent-Length: 1\r\n\r\na",
    "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request [closed]",
  ],
  [
    "host-space",
    "POST /hooks/size HTTP/1.1\r\nHost: x y\r\nContent-Length: 1\r\n\r\na",
    "HTTP/1.1 400 Bad Request: malformed Host header\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request: malformed Host header [closed]",
  ],
  [
    "host-lt",
    "POST /hooks/size HTTP/1.1\r\nHost: x<\r\nContent-Length: 1\r\n\r\na",
    "HTTP/1.1 400 Bad Request: malformed Host header\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request: malformed Host header [closed]",
  ],
  [
    "host-slash",
    "POST /hooks/size HTTP/1.1\r\nHost: x/y\r\nContent-Length: 1\r\n\r\na",
    "HTTP/1.1 400 Bad Request: malformed Host header\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request: malformed Host header [closed]",
  ],
  [
    "host-at",
    "POST /hooks/size HTTP/1.1\r\nHost: u@x\r\nContent-Length: 1\r\n\r\na",
    "HTTP/1.1 400 Bad Request: malformed Host header\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request: malformed Host header [closed]",
  ],
  [
    "host-quote",
    'POST /hooks/size HTTP/1.1\r\nHost: "x\r\nContent-Length: 1\r\n\r\na',
    "HTTP/1.1 400 Bad Request: malformed Host header\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request: malformed Host header [closed]",
  ],
  [
    "http09",
    "POST /hooks/size HTTP/0.9\r\nHost: x\r\nContent-Length: 1\r\n\r\na",
    "HTTP/1.1 505 HTTP Version Not Supported: unsupported protocol version\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n505 HTTP Version Not Supported: unsupported protocol version [closed]",
  ],
  [
    "http20",
    "POST /hooks/size HTTP/2.0\r\nHost: x\r\nContent-Length: 1\r\n\r\na",
    "HTTP/1.1 505 HTTP Version Not Supported: unsupported protocol version\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n505 HTTP Version Not Supported: unsupported protocol version [closed]",
  ],
  [
    "http12",
    "POST /hooks/size HTTP/1.2\r\nHost: x\r\nContent-Length: 1\r\n\r\na",
    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n1\n [open]",
  ],
  [
    "two-spaces",
    "POST  /hooks/size HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\na",
    "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request [closed]",
  ],
  [
    "te-http10",
    "POST /hooks/size HTTP/1.0\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
    "HTTP/1.0 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: keep-alive\r\n\r\n0\nHTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request [closed]",
  ],
  [
    "sig-chunk17",
    "POST /hooks/sig HTTP/1.1\r\nHost: x\r\nX-Sig: sha256=00\r\nTransfer-Encoding: chunked\r\n\r\n00000000000000003\r\nabc\r\n0\r\n\r\nPOST /hooks/size HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nzz",
    "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 43\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\nError occurred while evaluating hook rules. [closed]",
  ],
  // Issue 34 item 3: an `Expect: 100-continue` body the handler did not read closes the connection (Go's
  // chunkWriter.writeHeader), even when the client sent it at once; a body read and dropped without it does not.
  [
    "expect-unknown-hook",
    `POST /hooks/nope HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: ${HIDDEN.length}\r\n\r\n${HIDDEN}`,
    "HTTP/1.1 404 Not Found\r\nContent-Length: 15\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\nHook not found. [closed]",
  ],
  [
    "expect-unknown-hook-chunked",
    `POST /hooks/nope HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n${HIDDEN.length.toString(16)}\r\n${HIDDEN}\r\n0\r\n\r\n${HIDDEN}`,
    "HTTP/1.1 404 Not Found\r\nContent-Length: 15\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\nHook not found. [closed]",
  ],
  [
    "expect-405",
    `POST /hooks/get-only HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: ${HIDDEN.length}\r\n\r\n${HIDDEN}`,
    "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n [closed]",
  ],
  [
    "expect-read",
    `POST /hooks/size HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: ${HIDDEN.length}\r\n\r\n${HIDDEN}`,
    "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n59\n [open]",
  ],
  [
    "unknown-hook-body",
    `POST /hooks/nope HTTP/1.1\r\nHost: x\r\nContent-Length: ${HIDDEN.length}\r\n\r\n${HIDDEN}`,
    "HTTP/1.1 404 Not Found\r\nContent-Length: 15\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nHook not found. [open]",
  ],
  [
    "405-body",
    `POST /hooks/get-only HTTP/1.1\r\nHost: x\r\nContent-Length: ${HIDDEN.length}\r\n\r\n${HIDDEN}`,
    "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n [open]",
  ],
];

/** What a process used so far: resident memory (bytes) and CPU time (seconds), from /proc. */
export function processUsage(pid: number): { rss: number; cpu: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? "0";
  // utime and stime, fields 14 and 15 of proc(5), in clock ticks (100 per second on Linux).
  return { rss: Number(rss) * 1024, cpu: (Number(fields[11]) + Number(fields[12])) / 100 };
}

/**
 * Pipelines requests to an unknown hook without ever reading an answer and returns how much the
 * server's memory and CPU time grew over `ms` once the connection backed up. The kernel's socket buffers hold
 * several MB of requests and answers, which any server reads and answers first: the measured window starts once a
 * write of the client waited a second while the server used no CPU (or after `warmupMs` at most, for a server that
 * reads on). A server that stops reading stays flat from then on; one that reads on grows with every second.
 */
export async function unreadPipeline(
  port: number,
  options: { pid: number; warmupMs: number; ms: number },
): Promise<{ rssGrowth: number; cpu: number }> {
  const socket = connect(port, "127.0.0.1");
  socket.pause();
  socket.on("error", () => undefined);
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  const batch = "GET /hooks/nope HTTP/1.1\r\nHost: x\r\n\r\n".repeat(100);
  let pending: Promise<void> | undefined;
  /** Writes until `until`, or (with `untilIdle`) until a write waited a second while the server was idle. */
  const send = async (until: number, untilIdle: boolean) => {
    while (Date.now() < until) {
      const cpu = processUsage(options.pid).cpu;
      pending ??= new Promise<void>((resolve) => socket.write(batch, () => resolve()));
      const wait = Math.min(1000, Math.max(0, until - Date.now()));
      const taken = await Promise.race([
        pending.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), wait)),
      ]);
      if (taken) pending = undefined;
      else if (untilIdle && processUsage(options.pid).cpu - cpu < 0.02) return;
    }
  };
  try {
    await send(Date.now() + options.warmupMs, true);
    const before = processUsage(options.pid);
    await send(Date.now() + options.ms, false);
    const after = processUsage(options.pid);
    return { rssGrowth: after.rss - before.rss, cpu: after.cpu - before.cpu };
  } finally {
    socket.destroy();
  }
}

/** Sends the bytes in one write; what came back (Date lines left out), then ` [closed]` or ` [open]`. */
export function exchange(port: number, data: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(Buffer.from(data, "latin1")));
    let out = "";
    let quiet: NodeJS.Timeout | undefined;
    const done = (how: string) => {
      clearTimeout(quiet);
      socket.destroy();
      resolve(`${out.replace(/Date: .*\r\n/g, "")} [${how}]`);
    };
    socket.on("data", (c: Buffer) => {
      out += c.toString("latin1");
      clearTimeout(quiet);
      quiet = setTimeout(() => done("open"), 1500);
    });
    socket.on("end", () => done("closed"));
    // Go resets a connection it closes with request bytes still unread; the answer came before.
    socket.on("error", () => done("closed"));
    // Commands start slowly on a loaded machine: the first byte may take seconds.
    quiet = setTimeout(() => done("open"), 20_000);
  });
}

/**
 * Writes `pieces()` one at a time (each after the previous was flushed) until `stop()` or the pieces run out;
 * resolves with what came back.
 */
export async function flood(
  port: number,
  options: { head: string; pieces: () => string | undefined; stop?: () => boolean; pauseMs?: number },
): Promise<string> {
  const socket = connect(port, "127.0.0.1");
  let out = "";
  let ended = false;
  socket.on("data", (c: Buffer) => (out += c.toString("latin1")));
  socket.on("close", () => (ended = true));
  socket.on("error", () => undefined);
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  await new Promise<void>((resolve) => socket.write(options.head, () => resolve()));
  for (;;) {
    const piece = options.pieces();
    if (piece === undefined || ended || options.stop?.() || out !== "") break;
    await new Promise<void>((resolve) => socket.write(piece, () => resolve()));
    if (options.pauseMs === undefined) await new Promise((r) => setImmediate(r));
    else await new Promise((r) => setTimeout(r, options.pauseMs));
  }
  for (let i = 0; i < 300 && !ended && !/\r\n\r\n/.test(out); i++)
    await new Promise((r) => setTimeout(r, 10));
  socket.destroy();
  return out.replace(/Date: .*\r\n/g, "");
}

/** A plain request on its own connection: the status line of the answer, as soon as it arrives. */
function statusOf(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1", () => socket.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
    let out = "";
    const done = () => {
      socket.destroy();
      resolve(out.split("\r\n")[0] as string);
    };
    socket.on("data", (c: Buffer) => {
      out += c.toString("latin1");
      if (out.includes("\r\n")) done();
    });
    socket.on("end", done);
    socket.on("error", done);
  });
}

/** The side under test: where it listens and how many times its commands ran so far. */
export interface SafetySide {
  readonly port: number;
  runs(): Promise<number>;
}

/**
 * Declares the battery. `compare`, when given, also checks each answer against the peer's and returns the peer's.
 */
export function safetyTests(
  side: () => SafetySide,
  compare?: (name: string, data: string) => Promise<string>,
): void {
  for (const [name, data, goAnswer] of SAFETY_CASES) {
    test(`wire safety: ${name}`, async () => {
      const before = await side().runs();
      const answer = await exchange(side().port, data);
      assert.equal(answer, goAnswer);
      if (compare !== undefined) assert.equal(answer, await compare(name, data));
      // Commands started by the answers above have finished (their output is in them).
      const ran = (await side().runs()) - before;
      assert.equal(ran, goAnswer.match(/200 OK/g)?.length ?? 0, `${name}: the command ran ${ran} times`);
    });
  }

  test("wire safety: an endless chunked body to an unknown hook is answered 404 without being read to its end", async () => {
    let sent = 0;
    const answer = await flood(side().port, {
      head: "POST /hooks/nope HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
      // Up to 4 MiB: Go answers after 256 KiB.
      pieces: () => (sent++ < 256 ? `4000\r\n${"x".repeat(0x4000)}\r\n` : undefined),
    });
    assert.match(answer, /^HTTP\/1\.1 404 Not Found\r\n[\s\S]*Connection: close\r\n\r\nHook not found\.$/);
    assert.ok(sent < 256, `the whole 4 MiB was read (${sent} chunks) before the answer`);
  });

  test("wire safety: 1 MiB of headers sent 1 KiB at a time does not stop others being answered", async () => {
    const line = `X-Pad: ${"p".repeat(1014)}\r\n`;
    let sent = 0;
    let others = 0;
    const slow = flood(side().port, {
      head: "GET / HTTP/1.1\r\nHost: x\r\n",
      pieces: () => (sent++ < 1000 ? line : sent === 1002 ? undefined : "\r\n"),
      stop: () => others >= 3,
      // At least a second for the whole MiB, so the others have time to be answered meanwhile.
      pauseMs: 1,
    });
    for (let i = 0; i < 3; i++) {
      assert.equal(await statusOf(side().port), "HTTP/1.1 200 OK");
      others++;
    }
    await slow;
    assert.ok(sent < 1000, "the others were answered only once the slow client had sent everything");
  });

  test("wire safety: an endless body of 16-byte chunks does not stop others being answered", async () => {
    let sent = 0;
    let others = 0;
    const slow = flood(side().port, {
      head: "POST /hooks/size HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
      pieces: () => (sent++ < 100_000 ? `10\r\n${"y".repeat(16)}\r\n`.repeat(64) : undefined),
      stop: () => others >= 5,
    });
    for (let i = 0; i < 5; i++) {
      assert.equal(await statusOf(side().port), "HTTP/1.1 200 OK");
      others++;
    }
    await slow;
    assert.ok(sent < 100_000, "the others were answered only once the slow client had sent everything");
  });
}
