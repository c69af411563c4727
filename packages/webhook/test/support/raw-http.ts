// A raw HTTP/1.1 client for the black-box tests: node's own client upper-cases methods and normalises paths, and the
// parity suite must send `Get`, `//hooks/x` and repeated headers exactly as written, and read chunked answers.
import { connect } from "node:net";

/** A request exactly as it goes on the wire (plus `Host`, `Connection: close` and, unless chunked, `Content-Length`). */
export interface RawRequest {
  readonly method: string;
  readonly path: string;
  readonly headers?: readonly (readonly [string, string])[];
  readonly body?: string | Buffer;
}

/** The parsed answer: status, headers in order with their wire names, and the de-chunked body. */
export interface RawResponse {
  readonly status: number;
  readonly headers: readonly (readonly [string, string])[];
  readonly body: Buffer;
  /** The statuses of interim answers before it (`100 Continue`), in order. */
  readonly informational?: readonly number[];
}

/** Sends one request on a fresh connection and reads the answer until the server closes it. */
export function rawRequest(port: number, req: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    const body = req.body === undefined ? undefined : Buffer.from(req.body);
    let head = `${req.method} ${req.path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`;
    for (const [k, v] of req.headers ?? []) head += `${k}: ${v}\r\n`;
    const chunked = (req.headers ?? []).some(([k]) => k.toLowerCase() === "transfer-encoding");
    if (body !== undefined && !chunked) head += `Content-Length: ${body.length}\r\n`;
    head += "Connection: close\r\n\r\n";
    socket.setTimeout(20_000, () => socket.destroy(new Error(`timeout: ${req.method} ${req.path}`)));
    socket.on("data", (c: Buffer) => chunks.push(c));
    socket.on("error", reject);
    socket.on("end", () => {
      try {
        resolve(parseResponse(Buffer.concat(chunks), req.method === "HEAD"));
      } catch (error) {
        reject(error);
      }
    });
    socket.write(body === undefined ? head : Buffer.concat([Buffer.from(head), body]));
  });
}

function parseResponse(all: Buffer, head: boolean): RawResponse {
  let raw = all;
  const informational: number[] = [];
  // Interim answers (`HTTP/1.1 100 Continue` and its blank line) come before the answer itself.
  for (let m = /^HTTP\/1\.[01] (1\d\d)[^\r]*\r\n\r\n/.exec(raw.toString("latin1", 0, 64)); m; ) {
    informational.push(Number(m[1]));
    raw = raw.subarray(m[0].length);
    m = /^HTTP\/1\.[01] (1\d\d)[^\r]*\r\n\r\n/.exec(raw.toString("latin1", 0, 64));
  }
  const end = raw.indexOf("\r\n\r\n");
  if (end < 0) throw new Error(`incomplete response: ${JSON.stringify(raw.toString())}`);
  const [statusLine = "", ...lines] = raw.subarray(0, end).toString("latin1").split("\r\n");
  const status = Number(statusLine.split(" ")[1]);
  const headers = lines.map((l) => {
    const colon = l.indexOf(":");
    return [l.slice(0, colon), l.slice(colon + 1).trim()] as const;
  });
  let body = raw.subarray(end + 4);
  if (head) body = Buffer.alloc(0);
  else if (headers.some(([k, v]) => k.toLowerCase() === "transfer-encoding" && v === "chunked"))
    body = dechunk(body);
  return informational.length > 0 ? { status, headers, body, informational } : { status, headers, body };
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = data.indexOf("\r\n", at);
    const size = Number.parseInt(data.subarray(at, eol).toString(), 16);
    if (!(size > 0)) return Buffer.concat(parts);
    parts.push(data.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

/** Writes `bytes` as they are and reads the answer until the server closes (or 5 s pass); Date lines removed. */
export function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(bytes));
    let text = "";
    const done = () => resolve(text.replace(/^Date: [^\r]*\r\n/m, ""));
    socket.setTimeout(5000, () => {
      socket.destroy();
      done();
    });
    socket.on("data", (c: Buffer) => {
      text += c.toString("latin1");
    });
    socket.on("end", done);
    socket.on("error", (e) => (text === "" ? reject(e) : done()));
  });
}
