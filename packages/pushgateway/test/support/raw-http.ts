// Raw HTTP/1.1 exchanges on a socket, for what fetch cannot send or show (malformed requests, idle connections,
// chunked framing).
import { connect } from "node:net";
import { gunzipSync } from "node:zlib";

/** Two requests on one connection, the second after 6 s idle; resolves with both raw answers. */
export function idleSession(port: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const answers: string[] = [];
    let text = "";
    const ask = () => socket.write(`GET /-/healthy HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    socket.on("connect", ask);
    socket.setTimeout(20_000, () => {
      socket.destroy();
      reject(new Error(`no answer within 20 s after ${answers.length} answer(s)`));
    });
    socket.on("data", (c: Buffer) => {
      text += c.toString("latin1");
      if (!text.endsWith("\r\n\r\nOK")) return;
      answers.push(text);
      text = "";
      if (answers.length === 1) setTimeout(ask, 6000);
      else {
        socket.end();
        resolve(answers);
      }
    });
    socket.on("error", reject);
    socket.on("end", () => reject(new Error(`closed after ${answers.length} answer(s)`)));
  });
}

/**
 * Writes `bytes` as they are and reads the answer until the server closes (or 5 s pass); Date lines removed. With
 * `halfClose` the FIN follows the bytes at once (`printf ... | nc`).
 */
export function rawExchange(
  port: number,
  bytes: string | Buffer,
  options: { halfClose?: boolean } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: "127.0.0.1", allowHalfOpen: options.halfClose === true }, () =>
      options.halfClose ? socket.end(bytes) : socket.write(bytes),
    );
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

/**
 * Writes `bytes` on a plain TCP connection and reads until the server closes; fails when it has not closed within 5 s
 * (a reset after the answer counts as a close).
 */
export function rawUntilClose(port: number, bytes: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: "127.0.0.1" }, () => socket.write(bytes));
    let text = "";
    socket.setTimeout(5000, () =>
      socket.destroy(new Error(`no close within 5 s after ${JSON.stringify(text)}`)),
    );
    socket.on("data", (c: Buffer) => {
      text += c.toString("latin1");
    });
    socket.on("error", (e: NodeJS.ErrnoException) => (e.code === "ECONNRESET" ? resolve(text) : reject(e)));
    socket.on("close", () => resolve(text));
  });
}

/** The payload of a chunked body. */
export function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = data.indexOf("\r\n", at);
    const size = Number.parseInt(data.subarray(at, eol).toString("latin1"), 16);
    if (!(size > 0)) return Buffer.concat(parts);
    parts.push(data.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

/** The status line, the head and the payload of a raw answer (dechunked when chunked, gunzipped when gzip). */
export function parseAnswer(answer: string): { status: string; head: string; body: string } {
  const split = answer.indexOf("\r\n\r\n");
  const head = answer.slice(0, split);
  let body: Buffer = Buffer.from(answer.slice(split + 4), "latin1");
  if (/^transfer-encoding: chunked/im.test(head)) body = dechunk(body);
  if (/^content-encoding: gzip$/im.test(head)) body = gunzipSync(body);
  return { status: head.split("\r\n")[0] ?? "", head, body: body.toString("utf8") };
}
