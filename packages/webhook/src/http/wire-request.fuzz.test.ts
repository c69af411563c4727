// Seeded fuzzing of the request reader against node's own parser (llhttp, through a loopback node:http server):
// thousands of generated and mutated request heads and chunked bodies, fed in random pieces. The reader must never
// throw, must read the same bytes the same way however they are split, and whatever it accepts must be exactly
// what llhttp parses (method, target, headers, body), or an input where Go is more lenient than llhttp and the
// reader follows Go (named in GO_LENIENCY).
import assert from "node:assert/strict";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { test } from "node:test";
import { BodyReader } from "./body-reader.js";
import { HeadScanner } from "./head-scanner.js";
import { parseHead } from "./wire-request.js";

/** mulberry32: a small seeded generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SEED = 20261125;
const CASES = 2000;

function generate(rand: () => number): Buffer {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  /** Mostly one of the well-formed choices, sometimes one of the odd ones. */
  const mostly = <T>(good: readonly T[], odd: readonly T[]): T => (rand() < 0.8 ? pick(good) : pick(odd));
  const method = mostly(["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"], ["post", "PURGE", "HEAD"]);
  const target = mostly(
    ["/", "/hooks/x", "/a?b=c", "/%41b"],
    ["/%zz", "http://h/p?q", "*", "/a b", "/\u00e9"],
  );
  const version = mostly(
    ["HTTP/1.1", "HTTP/1.1", "HTTP/1.0"],
    ["HTTP/1.2", "HTTP/2.0", "HTTP/1.10", "http/1.1"],
  );
  const lines = [`${method} ${target} ${version}`];
  if (rand() < 0.9) lines.push(mostly(["Host: h", "Host: h:80", "host:h"], ["Host: a b", "Host:"]));
  const chunked = rand() < 0.5;
  const data = "x".repeat(Math.floor(rand() * 40));
  let body = "";
  if (chunked) {
    lines.push(
      pick(["Transfer-Encoding: chunked", "Transfer-Encoding: Chunked", "Transfer-Encoding: gzip, chunked"]),
    );
    let rest = data;
    while (rest.length > 0) {
      const n = 1 + Math.floor(rand() * rest.length);
      const size = n.toString(16);
      body += `${pick([size, size.toUpperCase(), `0${size}`, `${size};e=1`, `${size} `, `${size} ;e`])}\r\n`;
      body += `${rest.slice(0, n)}\r\n`;
      rest = rest.slice(n);
    }
    body += `0\r\n${pick(["", "T: v\r\n", "bad\r\n"])}\r\n`;
  } else if (data.length > 0 || rand() < 0.3) {
    lines.push(`Content-Length: ${pick([String(data.length), ` ${data.length}`, `+${data.length}`])}`);
    body = data;
  }
  for (let i = Math.floor(rand() * 3); i > 0; i--) {
    lines.push(
      pick(["X-A: 1", "X-B:  two  ", "X C: 3", "X-D: \u00ff", ": empty", "X-E: a\tb", "Connection: close"]),
    );
  }
  const bytes = [...Buffer.from(`${lines.join("\r\n")}\r\n\r\n${body}`, "latin1")];
  // A few byte mutations in about a third of the cases.
  for (let m = rand() < 0.3 ? 1 + Math.floor(rand() * 3) : 0; m > 0; m--) {
    const at = Math.floor(rand() * bytes.length);
    const byte = pick([0x20, 0x09, 0x0d, 0x0a, 0x3a, 0x3b, 0x30, 0x61, 0x25, 0x00, 0x7f, 0xff]);
    const op = rand();
    if (op < 0.4) bytes[at] = byte;
    else if (op < 0.7) bytes.splice(at, 0, byte);
    else bytes.splice(at, 1);
  }
  return Buffer.from(bytes);
}

/** What our reader makes of the bytes, fed in the given pieces. */
type Verdict =
  | { kind: "refused" }
  | { kind: "incomplete" }
  | {
      kind: "request";
      method: string;
      url: string;
      httpVersion: string;
      rawHeaders: readonly string[];
      body: string;
      broken: boolean;
    };

function readOurs(bytes: Buffer, cuts: readonly number[]): Verdict {
  const pieces: Buffer[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    pieces.push(bytes.subarray(from, cut));
    from = cut;
  }
  const scanner = new HeadScanner();
  const head: Buffer[] = [];
  let rest: Buffer[] = [];
  let done = false;
  for (const piece of pieces) {
    if (done) {
      rest.push(piece);
      continue;
    }
    const at = scanner.push(piece);
    if (typeof at !== "number") return { kind: "refused" };
    if (at < 0) head.push(piece);
    else {
      head.push(piece.subarray(0, at));
      rest = [piece.subarray(at)];
      done = true;
    }
  }
  if (!done) return { kind: "incomplete" };
  const parsed = parseHead(Buffer.concat(head).toString("latin1", 0, scanner.size - 4));
  if ("refusal" in parsed) return { kind: "refused" };
  if (parsed.expectationFailed) return { kind: "refused" };
  const reader = new BodyReader(parsed.framing);
  for (const piece of rest) reader.push(piece);
  if (!reader.done && !reader.failed) return { kind: "incomplete" };
  return {
    kind: "request",
    method: parsed.method,
    url: parsed.target,
    httpVersion: parsed.httpVersion,
    rawHeaders: parsed.rawHeaders,
    body: reader.body().toString("latin1"),
    broken: reader.failed,
  };
}

/** What llhttp makes of the same bytes: the first request, or its error code. */
type NodeVerdict =
  | { kind: "error"; code: string }
  | { kind: "request"; method: string; url: string; rawHeaders: string[]; body: string };

/**
 * Inputs Go reads and llhttp refuses, where the reader follows Go (request.go, transfer.go, chunked.go): any token
 * as a method, a Content-Length beside chunked, blanks after a chunk size, one-digit HTTP/1.x versions past 1.1,
 * header bytes llhttp's strict mode refuses but Go's ValidHeaderFieldValue takes, and codings on HTTP/1.0.
 */
const GO_LENIENCY = new Set([
  "HPE_INVALID_METHOD",
  "HPE_UNEXPECTED_CONTENT_LENGTH",
  "HPE_INVALID_CHUNK_SIZE",
  "HPE_INVALID_VERSION",
  "HPE_INVALID_HEADER_TOKEN",
  "HPE_INVALID_TRANSFER_ENCODING",
  // llhttp's strict mode refuses Transfer-Encoding on HTTP/1.0, which Go ignores (transfer.go, issue 12785).
  "HPE_STRICT",
]);

test(`fuzz: ${CASES} generated requests (seed ${SEED}) never throw, read alike however split, and agree with llhttp`, {
  timeout: 110_000,
}, async () => {
  let pending: ((v: NodeVerdict) => void) | undefined;
  const server = createServer(
    { maxHeaderSize: (1 << 20) + 4096, requireHostHeader: false },
    (req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        pending?.({
          kind: "request",
          method: req.method ?? "",
          url: req.url ?? "",
          rawHeaders: req.rawHeaders,
          body: Buffer.concat(chunks).toString("latin1"),
        });
        res.destroy();
      });
      req.on("error", () => pending?.({ kind: "error", code: "aborted" }));
    },
  );
  server.on("clientError", (error: Error & { code?: string }, socket) => {
    pending?.({ kind: "error", code: error.code ?? "unknown" });
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const llhttp = (bytes: Buffer) =>
    new Promise<NodeVerdict>((resolve) => {
      const timer = setTimeout(() => finish({ kind: "error", code: "no answer" }), 2000);
      const socket = connect(port, "127.0.0.1", () => socket.end(bytes));
      socket.on("error", () => undefined);
      const finish = (v: NodeVerdict) => {
        clearTimeout(timer);
        pending = undefined;
        socket.destroy();
        resolve(v);
      };
      pending = finish;
    });
  const rand = random(SEED);
  const tally: Record<string, number> = {};
  try {
    for (let i = 0; i < CASES; i++) {
      const bytes = generate(rand);
      const whole = readOurs(bytes, []);
      const cuts = [...new Set([Math.floor(rand() * bytes.length), Math.floor(rand() * bytes.length)])].sort(
        (a, b) => a - b,
      );
      assert.deepEqual(readOurs(bytes, cuts), whole, `case ${i}: split at ${cuts} reads differently`);
      const oneByOne = [...bytes.keys()].slice(1);
      assert.deepEqual(readOurs(bytes, oneByOne), whole, `case ${i}: byte by byte reads differently`);
      if (whole.kind !== "request" || whole.broken) {
        tally[whole.kind === "request" ? "broken body" : whole.kind] = (tally[whole.kind] ?? 0) + 1;
        continue;
      }
      // Go ignores Transfer-Encoding on HTTP/1.0 (transfer.go, issue 12785) where node reads the chunks as a body.
      if (
        whole.httpVersion === "1.0" &&
        whole.rawHeaders.some((h, j) => j % 2 === 0 && /^transfer-encoding$/i.test(h))
      ) {
        tally["go-lenient coding on HTTP/1.0"] = (tally["go-lenient coding on HTTP/1.0"] ?? 0) + 1;
        continue;
      }
      const node = await llhttp(bytes);
      const input = JSON.stringify(bytes.toString("latin1"));
      // The connection ended before node:http delivered the body (its request stream aborted), or node:http refused
      // bytes after a request that closes the connection before delivering that request: no verdict to compare.
      if (node.kind === "error" && ["aborted", "no answer", "HPE_CLOSED_CONNECTION"].includes(node.code)) {
        tally["llhttp no verdict"] = (tally["llhttp no verdict"] ?? 0) + 1;
        continue;
      }
      if (node.kind === "error") {
        assert.ok(
          GO_LENIENCY.has(node.code),
          `case ${i}: ours accepts what llhttp refuses (${node.code}): ${input}`,
        );
        tally[`go-lenient ${node.code}`] = (tally[`go-lenient ${node.code}`] ?? 0) + 1;
        continue;
      }
      assert.equal(whole.method, node.method, input);
      assert.equal(whole.url, node.url, input);
      assert.equal(whole.body, node.body, input);
      // Go drops a Content-Length beside chunked; node keeps it.
      const nodeHeaders = node.rawHeaders.filter(
        (_, j) =>
          !(
            whole.rawHeaders.length < node.rawHeaders.length &&
            (node.rawHeaders[j - (j % 2)] as string).toLowerCase() === "content-length"
          ),
      );
      assert.deepEqual(whole.rawHeaders, nodeHeaders, input);
      tally.agreed = (tally.agreed ?? 0) + 1;
    }
  } finally {
    server.close();
    server.closeAllConnections();
  }
  // The generator must reach both sides of the reader, or the test proves little.
  assert.ok((tally.agreed ?? 0) > CASES / 10, JSON.stringify(tally));
  assert.ok((tally.refused ?? 0) > CASES / 10, JSON.stringify(tally));
});
