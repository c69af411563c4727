import type { Server } from "node:http";
import type { Socket } from "node:net";
import { endAndClose, goErrorResponse } from "../go/refusal.js";
import { goStatusReason } from "../go/status-text.js";

/** One request read off the wire. */
export interface Http1Request {
  readonly method: string;
  readonly url: string;
  readonly httpVersion: "1.0" | "1.1";
  /** Name, value, name, value… as sent (node's `rawHeaders` shape). */
  readonly rawHeaders: readonly string[];
  readonly body: Buffer;
  /** Set for `Expect: 100-continue`: `body` is empty and this reads it, sending `100 Continue` first. */
  readonly readBody?: () => Promise<Buffer>;
}

/**
 * Writes the answer to the request being served; called at most once. Headers go out in the record's order, with
 * `Date` just before `Content-Length` (as Go's server writes it).
 */
export type Http1Respond = (
  status: number,
  headers: Readonly<Record<string, string | readonly string[]>>,
  body: string | Buffer,
) => void;

export interface Http1Options {
  /** Serves one request; the next one on the connection is read once this settles. */
  readonly serve: (req: Http1Request, respond: Http1Respond, socket: Socket) => Promise<void>;
  /** Request line and headers past this size go to node:http, which refuses them (431). */
  readonly maxHeaderBytes: number;
  /** A declared body past this size (when > 0) goes to node:http, which answers the body limit. */
  readonly maxBodyBytes: number;
  /** The server's event that brings a readable socket: `connection`, or `secureConnection` for https. */
  readonly event?: "connection" | "secureConnection";
}

/**
 * Reads plain HTTP/1.x requests straight off each accepted socket and writes the answers as Go's server frames them,
 * handing a connection to node:http (the server's own `connection` listener) at a request boundary whenever a request
 * is anything but the common shape: a request line `METHOD /target HTTP/1.x`, well-formed headers, a body by at most
 * one `Content-Length` or in chunks (HTTP/1.1; a `Content-Length` beside it ignored, as Go does), no `Upgrade`,
 * no expectation but `100-continue` (answered as Go: `100 Continue` only when the handler reads the body). node:http's JavaScript costs ~30 µs per request,
 * the whole of the gap to upstream on rejected requests (bench/webhook/README.md); what node:http still reads keeps
 * the answers the parity suite checks.
 *
 * Framing as Go's `net/http` writes it: the request's protocol in the status line, Go's reason phrases, `Date` just
 * before `Content-Length`, no `Connection: keep-alive` on HTTP/1.1, no `Content-Length` or body on 1xx, 204 and
 * 304, a complete request followed by the client's FIN still answered, kept-alive connections without idle timeout.
 */
export function serveHttp1(server: Server, options: Http1Options): void {
  const event = options.event ?? "connection";
  const nodeListeners = server.listeners(event) as ((socket: Socket) => void)[];
  server.removeAllListeners(event);
  const idle = new Set<Socket>();
  const open = new Set<Socket>();
  const handOff = (socket: Socket) => {
    for (const listener of nodeListeners) listener.call(server, socket);
  };
  // node:http closes its own idle connections on close(); these are not its own.
  const closeIdle = server.closeIdleConnections.bind(server);
  server.closeIdleConnections = () => {
    closeIdle();
    for (const socket of idle) socket.destroy();
  };
  const closeAll = server.closeAllConnections.bind(server);
  server.closeAllConnections = () => {
    closeAll();
    for (const socket of open) socket.destroy();
  };
  server.on(event, (socket: Socket) => {
    open.add(socket);
    socket.once("close", () => open.delete(socket));
    readRequests(socket, { ...options, server, idle, handOff });
  });
}

interface Head {
  readonly method: string;
  readonly url: string;
  readonly httpVersion: "1.0" | "1.1";
  readonly rawHeaders: string[];
  /** Bytes of request line and headers, blank line included. */
  readonly size: number;
  /** The declared body size; 0 for a chunked body. */
  readonly contentLength: number;
  /** The body comes in chunks (`Transfer-Encoding: chunked`), read by {@link readChunked}. */
  readonly chunked: boolean;
  /** `Expect: 100-continue` on HTTP/1.1 with a body: served before the body is read. */
  readonly expectContinue: boolean;
  /** The client asked to close after this answer (or did not ask an HTTP/1.0 connection to stay). */
  readonly close: boolean;
}

const BAD_REQUEST = goErrorResponse("400 Bad Request");
/** What node:http should read instead: anything outside the common shape. */
const OTHER = "other";
const INCOMPLETE = "incomplete";
const UNSUPPORTED_CODING = "unsupported coding";
/** Go's answer to a transfer coding other than a lone `chunked` (net/http server.go). */
const NOT_IMPLEMENTED = goErrorResponse("501 Not Implemented", "Unsupported transfer encoding");

const REQUEST_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+) (\/[\x21-\x7e]*) HTTP\/1\.([01])$/;
// The value is trimmed by hand (trimOws): a lazy value with optional trailing blanks backtracks quadratically over a
// long run of spaces (40 kB took 1.7 s), which any client could send.
const HEADER_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+):([\t\x20-\x7e]*)$/;

function readRequests(
  socket: Socket,
  options: Http1Options & { server: Server; idle: Set<Socket>; handOff: (socket: Socket) => void },
): void {
  const { server, idle, maxHeaderBytes, maxBodyBytes } = options;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let head: Head | undefined;
  let busy = false;
  let ended = false;
  /** While a request served before its body arrived (`Expect: 100-continue`) waits for that body. */
  let feedBody: (() => void) | undefined;
  // node:http's default; the answers are small and the client waits for them.
  socket.setNoDelay(true);
  idle.add(socket);

  const onData = (chunk: Buffer) => {
    pending.push(chunk);
    pendingBytes += chunk.length;
    if (busy) {
      if (feedBody !== undefined) feedBody();
      // Pipelined requests wait for the answer in progress; past a bound, stop reading (as node:http does).
      else if (pendingBytes > maxHeaderBytes) socket.pause();
      return;
    }
    if (head !== undefined && !head.chunked && pendingBytes < head.size + head.contentLength) return;
    next();
  };
  const onEnd = () => {
    ended = true;
    if (!busy) next();
    else feedBody?.();
  };
  const onError = () => socket.destroy();
  const onClose = () => idle.delete(socket);
  socket.on("data", onData);
  socket.on("end", onEnd);
  socket.on("error", onError);
  socket.on("close", onClose);

  const handOff = () => {
    if (ended) {
      // The client's FIN has been read: node:http could not see it (a stream cannot take data back after its end),
      // so the rare request it would read after one gets Go's answer to a request it cannot read.
      endAndClose(socket, BAD_REQUEST);
      return;
    }
    socket.off("data", onData);
    socket.off("end", onEnd);
    socket.off("error", onError);
    socket.off("close", onClose);
    idle.delete(socket);
    // Synchronously, so no chunk arrives between: node:http reads what was put back first.
    if (pendingBytes > 0) socket.unshift(Buffer.concat(pending, pendingBytes));
    pending = [];
    options.handOff(socket);
  };

  /** Everything buffered, as one buffer (kept as the only entry). */
  const buffered = (): Buffer => {
    const data = pending.length === 1 ? (pending[0] as Buffer) : Buffer.concat(pending, pendingBytes);
    pending = [data];
    return data;
  };

  /** Leaves in the buffer only what follows `end`. */
  const consume = (data: Buffer, end: number) => {
    const rest = data.subarray(end);
    pending = rest.length > 0 ? [rest] : [];
    pendingBytes = rest.length;
  };

  /**
   * The request's body from `data` (which starts with its head), or what to do instead. Upstream serves what body
   * arrived before the client's FIN (or before a malformed chunk) with it.
   */
  const takeBody = (data: Buffer, request: Head): { body: Buffer; end: number } | "wait" | "hand off" => {
    if (!request.chunked) {
      const end = request.size + request.contentLength;
      if (data.length < end && !ended) return "wait";
      return {
        body: data.subarray(request.size, Math.min(end, data.length)),
        end: Math.min(end, data.length),
      };
    }
    const read = readChunked(data, request.size);
    if (read === "invalid") return ended ? { body: Buffer.alloc(0), end: data.length } : "hand off";
    if ("incomplete" in read) {
      if (maxBodyBytes > 0 && read.size > maxBodyBytes && !ended) return "hand off";
      return ended ? { body: Buffer.concat(read.incomplete), end: data.length } : "wait";
    }
    if (maxBodyBytes > 0 && read.body.length > maxBodyBytes) return "hand off";
    return { body: read.body, end: read.end };
  };

  const next = (): void => {
    if (pendingBytes === 0) {
      if (ended) socket.end();
      return;
    }
    const data = buffered();
    if (head === undefined) {
      const parsed = parseHead(data, maxHeaderBytes);
      if (parsed === OTHER) {
        handOff();
        return;
      }
      if (parsed === UNSUPPORTED_CODING) {
        endAndClose(socket, NOT_IMPLEMENTED);
        return;
      }
      if (parsed === INCOMPLETE) {
        // Go answers a request cut short by the client's FIN with 400.
        if (ended) endAndClose(socket, BAD_REQUEST);
        return;
      }
      if (maxBodyBytes > 0 && parsed.contentLength > maxBodyBytes) {
        handOff();
        return;
      }
      head = parsed;
    }
    const request = head;
    if (request.expectContinue) {
      head = undefined;
      serveWithBodyLater(request);
      return;
    }
    const taken = takeBody(data, request);
    if (taken === "hand off") {
      handOff();
      return;
    }
    if (taken === "wait") return;
    head = undefined;
    consume(data, taken.end);
    serveOne(request, { body: taken.body });
  };

  /**
   * As Go's `expectContinueReader`: the request is served at once, and `100 Continue` goes out only when the handler
   * reads the body; an answer given without reading it closes the connection (the body may never come).
   */
  const serveWithBodyLater = (request: Head) => {
    let asked = false;
    let taken = false;
    const readBody = () => {
      if (!asked) {
        asked = true;
        socket.write("HTTP/1.1 100 Continue\r\n\r\n");
      }
      // Reading may have stopped while the handler had not asked for the body yet (the pipelining bound).
      socket.resume();
      return new Promise<Buffer>((resolve, reject) => {
        feedBody = () => {
          const data = buffered();
          const got = takeBody(data, request);
          if (got === "wait") return;
          feedBody = undefined;
          // A malformed or oversize body cannot go to node:http any more: the request ends without an answer, and
          // the hook's command does not run.
          if (got === "hand off") {
            socket.destroy();
            reject(new Error("the request body cannot be read"));
            return;
          }
          taken = true;
          consume(data, got.end);
          resolve(got.body);
        };
        feedBody();
      });
    };
    serveOne(request, { body: Buffer.alloc(0), readBody, bodyTaken: () => taken });
  };

  const serveOne = (
    request: Head,
    body: { body: Buffer; readBody?: () => Promise<Buffer>; bodyTaken?: () => boolean },
  ) => {
    busy = true;
    idle.delete(socket);
    let answered = false;
    const closes = () => request.close || !server.listening || body.bodyTaken?.() === false;
    const respond: Http1Respond = (status, headers, payload) => {
      if (answered) throw new Error("the request was already answered");
      answered = true;
      // A client's FIN ends the connection once its requests are answered; Go says nothing of it in the answer.
      writeAnswer(socket, { request, status, headers, body: payload, close: closes() });
    };
    options
      .serve(
        {
          method: request.method,
          url: request.url,
          httpVersion: request.httpVersion,
          rawHeaders: request.rawHeaders,
          body: body.body,
          ...(body.readBody === undefined ? {} : { readBody: body.readBody }),
        },
        respond,
        socket,
      )
      .then(
        () => {
          if (answered && body.bodyTaken?.() === false && request.contentLength <= DISCARD_LIMIT) {
            // As Go's body Close after a handler that did not read it: a body up to 256 KiB is still read (the
            // client sends it after a while without a 100) and dropped, then the connection closes.
            feedBody = () => {
              if (takeBody(buffered(), request) === "wait") return;
              feedBody = undefined;
              endAndClose(socket);
            };
            socket.resume();
            feedBody();
            return;
          }
          busy = false;
          feedBody = undefined;
          if (!answered) socket.destroy();
          else if (closes()) endAndClose(socket);
          else {
            idle.add(socket);
            socket.resume();
            next();
          }
        },
        () => socket.destroy(),
      );
  };
}

/**
 * Reads the request line and headers, or says why not: more bytes needed, or a request node:http should read.
 * Bare LF line ends, folded headers, absolute or `*` targets, `CONNECT`, bytes outside printable ASCII, a body in
 * coding on HTTP/1.0, an `Expect` other than `100-continue`, `Upgrade` and a missing Host on HTTP/1.1 all go to
 * node:http; a coding other than a
 * lone `chunked` on HTTP/1.1 is refused as Go refuses it.
 */
function parseHead(
  data: Buffer,
  maxHeaderBytes: number,
): Head | typeof OTHER | typeof INCOMPLETE | typeof UNSUPPORTED_CODING {
  const end = data.indexOf("\r\n\r\n");
  if (end < 0) {
    if (data.length > maxHeaderBytes) return OTHER;
    const lf = data.indexOf(0x0a);
    // A bare LF line end would never complete here; node:http reads those.
    if (lf === 0 || (lf > 0 && data[lf - 1] !== 0x0d)) return OTHER;
    return INCOMPLETE;
  }
  if (end + 4 > maxHeaderBytes) return OTHER;
  const lines = data.toString("latin1", 0, end).split("\r\n");
  const line = REQUEST_LINE.exec(lines[0] as string);
  if (line === null) return OTHER;
  const method = line[1] as string;
  if (method === "CONNECT" || method === "PRI") return OTHER;
  const httpVersion = line[3] === "1" ? "1.1" : "1.0";
  const rawHeaders: string[] = [];
  let length = "";
  let lengths = 0;
  let codings = 0;
  let chunked = false;
  let hosts = 0;
  let expect = false;
  let connection = "";
  for (let i = 1; i < lines.length; i++) {
    const header = HEADER_LINE.exec(lines[i] as string);
    if (header === null) return OTHER;
    const name = header[1] as string;
    const value = trimOws(header[2] as string);
    rawHeaders.push(name, value);
    switch (name.length) {
      case 4:
        if (name.toLowerCase() === "host") hosts++;
        break;
      case 6:
        if (name.toLowerCase() === "expect") {
          // Go answers other expectations with 417, as node:http does.
          if (value.toLowerCase() !== "100-continue") return OTHER;
          expect = true;
        }
        break;
      case 7:
        if (name.toLowerCase() === "upgrade") return OTHER;
        break;
      case 10:
        if (name.toLowerCase() === "connection") connection += `,${value.toLowerCase()}`;
        break;
      case 14:
        if (name.toLowerCase() === "content-length") {
          length = value;
          lengths++;
        }
        break;
      case 17:
        if (name.toLowerCase() === "transfer-encoding") {
          codings++;
          chunked = value.toLowerCase() === "chunked";
        }
        break;
    }
  }
  if (lengths > 1 || hosts > 1 || (hosts === 0 && httpVersion === "1.1")) return OTHER;
  // Go reads a lone `chunked` and refuses any other coding on HTTP/1.1 (`unsupportedTEError`); on HTTP/1.0 it ignores
  // the header, node:http does not: those go to node:http.
  if (codings > 0 && httpVersion !== "1.1") return OTHER;
  if (codings > 1 || (codings === 1 && !chunked)) return UNSUPPORTED_CODING;
  if (!chunked && lengths === 1 && !/^\d{1,15}$/.test(length)) return OTHER;
  // As Go's fixLength: a chunked body's Content-Length is ignored and removed from the request's headers.
  const headers = chunked ? withoutContentLength(rawHeaders) : rawHeaders;
  const tokens = connection === "" ? [] : connection.split(",").map((t) => t.trim());
  if (tokens.includes("upgrade")) return OTHER;
  const close = httpVersion === "1.1" ? tokens.includes("close") : !tokens.includes("keep-alive");
  const contentLength = chunked || lengths === 0 ? 0 : Number(length);
  // Go waits for the handler's first read only on HTTP/1.1 with a body (server.go, expectsContinue).
  const expectContinue = expect && httpVersion === "1.1" && (chunked || contentLength > 0);
  return {
    method,
    url: line[2] as string,
    httpVersion,
    rawHeaders: headers,
    size: end + 4,
    contentLength,
    chunked,
    expectContinue,
    close,
  };
}

/** Without leading and trailing spaces and tabs (RFC 9110's OWS). */
function trimOws(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && (text.charCodeAt(start) === 0x20 || text.charCodeAt(start) === 0x09)) start++;
  while (end > start && (text.charCodeAt(end - 1) === 0x20 || text.charCodeAt(end - 1) === 0x09)) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

function withoutContentLength(rawHeaders: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string;
    if (name.toLowerCase() !== "content-length") kept.push(name, rawHeaders[i + 1] as string);
  }
  return kept;
}

/** The longest chunk-size line Go's chunked reader takes. */
const MAX_CHUNK_LINE = 4096;
const CHUNK_SIZE = /^([0-9a-fA-F]{1,15})[\t ]*(;[^\r\n]*)?$/;

/**
 * Decodes a chunked body starting at `start`: its bytes and where the request ends (after the trailer), "incomplete"
 * while more is needed (with what has arrived so far, and its size, for a body limit), or "invalid" for what Go's
 * chunked reader refuses.
 */
function readChunked(
  data: Buffer,
  start: number,
): { body: Buffer; end: number } | { incomplete: Buffer[]; size: number } | "invalid" {
  const parts: Buffer[] = [];
  let size = 0;
  let at = start;
  for (;;) {
    const eol = data.indexOf("\r\n", at);
    if (eol < 0) return data.length - at > MAX_CHUNK_LINE ? "invalid" : { incomplete: parts, size };
    if (eol - at > MAX_CHUNK_LINE) return "invalid";
    const line = CHUNK_SIZE.exec(data.toString("latin1", at, eol));
    if (line === null) return "invalid";
    const length = Number.parseInt(line[1] as string, 16);
    if (length === 0) {
      // The trailer: header lines up to an empty one, read and dropped (Go keeps them apart from the headers).
      let next = eol + 2;
      for (;;) {
        const lineEnd = data.indexOf("\r\n", next);
        if (lineEnd < 0) return { incomplete: parts, size };
        if (lineEnd === next) return { body: Buffer.concat(parts, size), end: lineEnd + 2 };
        next = lineEnd + 2;
      }
    }
    size += length;
    const dataEnd = eol + 2 + length;
    if (data.length < dataEnd) {
      parts.push(data.subarray(eol + 2));
      return { incomplete: parts, size };
    }
    if (data.length < dataEnd + 2) {
      parts.push(data.subarray(eol + 2, dataEnd));
      return { incomplete: parts, size };
    }
    if (data[dataEnd] !== 0x0d || data[dataEnd + 1] !== 0x0a) return "invalid";
    parts.push(data.subarray(eol + 2, dataEnd));
    at = dataEnd + 2;
  }
}

/** Go drops answer headers whose name is not a token (`Header.WriteSubset`). */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Go's `maxPostHandlerReadBytes`: an unread body up to this size is read after the answer, a larger one is not. */
const DISCARD_LIMIT = 256 << 10;
/** Answers up to this size go out in one write with their head. */
const SMALL_BODY = 16 * 1024;

function writeAnswer(
  socket: Socket,
  answer: {
    request: Head;
    status: number;
    headers: Readonly<Record<string, string | readonly string[]>>;
    body: string | Buffer;
    close: boolean;
  },
): void {
  const { request, status, close } = answer;
  if (!Number.isInteger(status) || status < 100 || status > 999)
    throw new RangeError(`invalid status code ${status}`);
  // Go sends neither length nor body on these (bodyAllowedForStatus), nor a body for HEAD.
  const bodyAllowed = !(status < 200 || status === 204 || status === 304);
  // The headers in the caller's order (Go's: the handler's sorted, then Content-Length and a sniffed Content-Type),
  // Date just before Content-Length as Go writes it.
  let head = `HTTP/${request.httpVersion} ${status} ${goStatusReason(status)}\r\n`;
  let dated = false;
  for (const name of Object.keys(answer.headers)) {
    if (name === "Content-Length") {
      head += `Date: ${httpDate()}\r\n`;
      dated = true;
      if (!bodyAllowed) continue;
    }
    head += headerLines(name, answer.headers[name]);
  }
  if (!dated) head += `Date: ${httpDate()}\r\n`;
  if (close && request.httpVersion === "1.1") head += "Connection: close\r\n";
  else if (!close && request.httpVersion === "1.0") head += "Connection: keep-alive\r\n";
  head += "\r\n";
  // Header text goes out as UTF-8, as Go writes its strings (node would write latin1).
  const body = bodyAllowed && request.method !== "HEAD" ? answer.body : "";
  if (typeof body === "string") socket.write(head + body);
  else if (body.length <= SMALL_BODY) socket.write(Buffer.concat([Buffer.from(head), body]));
  else {
    socket.cork();
    socket.write(head);
    socket.write(body);
    socket.uncork();
  }
}

/** One header's lines as Go's `Header.Write` makes them: CR and LF become spaces, the value is trimmed. */
function headerLines(name: string, values: string | readonly string[] | undefined): string {
  if (values === undefined || !HEADER_NAME.test(name)) return "";
  let lines = "";
  for (const value of typeof values === "string" ? [values] : values) {
    const clean = /[\r\n]/.test(value) ? value.replace(/[\r\n]/g, " ") : value;
    lines += `${name}: ${trimOws(clean)}\r\n`;
  }
  return lines;
}

let dateSecond = -1;
let dateText = "";

/** The `Date` header, formatted once a second. */
function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(now).toUTCString();
  }
  return dateText;
}
