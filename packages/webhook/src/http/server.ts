import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { SecureVersion } from "node:tls";
import { ListenError, TlsError } from "../errors.js";
import type { Config } from "../flags.js";
import { goDuration, iBytes } from "../go/log-format.js";
import { goErrnoText, goPathError } from "../go/os-error.js";
import { endAndClose, goErrorResponse } from "../go/refusal.js";
import { goStatusReason } from "../go/status-text.js";
import { type HandlerContext, handleRequest } from "../handler.js";
import { dumpRequest, dumpResponse } from "./debug-dump.js";
import { serveHttp1 } from "./http1-connection.js";
import { openSslCiphers } from "./tls-ciphers.js";

/**
 * Checks `-tls-min-version` and `-cipher-suites`; upstream refuses bad ones with exit 1 once the hooks are loaded.
 *
 * @throws {TlsError} naming the unknown version or suite
 */
export function checkTlsSettings(config: Config): void {
  tlsVersion(config.tlsMinVersion);
  openSslCiphers(config.cipherSuites);
}

/**
 * Starts the HTTP(S) server on the configured address; resolves with the server once it listens.
 *
 * @throws {TlsError} when `-secure` is set and the certificate or key cannot be loaded
 * @throws {ListenError} when the address cannot be bound, worded as Go's `net.Listen`
 */
export async function startServer(
  config: Config,
  ctx: HandlerContext,
  options: { nodeHttpOnly?: boolean } = {},
): Promise<Server> {
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    // A client that aborts mid-body must not take the server down.
    serve(req, res, { config, ctx }).catch(() => res.destroy());
  };
  let server: Server;
  if (config.secure) {
    let cert: Buffer;
    let key: Buffer;
    try {
      cert = await readFile(config.cert);
      key = await readFile(config.key);
    } catch (cause) {
      throw new TlsError(goPathError(cause as NodeJS.ErrnoException), { cause });
    }
    try {
      server = createHttpsServer(
        {
          cert,
          key,
          minVersion: tlsVersion(config.tlsMinVersion),
          ALPNProtocols: ["http/1.1"],
          ...cipherOption(config.cipherSuites),
          ...GO_PARSER_LIMITS,
        },
        listener,
      );
    } catch (cause) {
      throw new TlsError(`tls: ${(cause as Error).message}`, { cause });
    }
    answerPlainHttpOnTls(server);
  } else server = createHttpServer(GO_PARSER_LIMITS, listener);
  // Common requests are read and answered without node:http (http1-connection.ts); the rest still go through it.
  if (options.nodeHttpOnly !== true) {
    serveHttp1(server, {
      serve: async (req, respond, socket) => {
        await ctx.ready;
        await serveWire({ ...req, remoteAddr: peerAddress(socket) }, { config, ctx, send: respond });
      },
      maxHeaderBytes: GO_PARSER_LIMITS.maxHeaderSize,
      maxBodyBytes: config.maxBodyBytes,
      event: config.secure ? "secureConnection" : "connection",
    });
  }
  // Go's http.Server as upstream builds it has no idle timeout: a kept-alive connection stays open until the client
  // closes it, and no `Keep-Alive: timeout=5` header is sent. node's 5 s default also races proxies that reuse an
  // upstream connection just as node closes it (their 502s on idle reuse).
  server.keepAliveTimeout = 0;
  server.on("clientError", (error: Error, socket: Duplex) => onClientError(error, socket, { config, ctx }));
  if (config.socket === "" && !(Number.isInteger(config.port) && config.port >= 0 && config.port < 65536)) {
    throw new ListenError(`listen tcp: address ${config.port}: invalid port`);
  }
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => reject(listenError(error, config));
    server.once("error", failed);
    const ready = () => {
      server.off("error", failed);
      resolve(server);
    };
    if (config.socket !== "") server.listen(config.socket, ready);
    else server.listen(config.port, config.ip, ready);
  });
}

/** What Go's server writes when a TLS port receives plain HTTP (net/http server.go). */
const PLAIN_HTTP_ON_TLS = "HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n";
const HTTP_STARTS = new Set(["GET /", "HEAD ", "POST ", "PUT /", "OPTIO"]);
/**
 * Go's server reads up to `DefaultMaxHeaderBytes` (1 MiB) plus 4 KiB of request line and headers where node stops at
 * 16 KiB, and answers a missing Host itself (see `serve`).
 */
const GO_PARSER_LIMITS = { maxHeaderSize: (1 << 20) + 4096, requireHostHeader: false } as const;
/** The types the handler sets where upstream lets Go sniff them (the `-debug` dump leaves them out too). */
const SNIFFABLE_TYPE = /^text\/(plain|html); charset=utf-8$/;
/** Answers up to this size are sent as one string with their head (see `serve`). */
const SMALL_BODY = 16 * 1024;

/**
 * Go answers a plain-HTTP request on the TLS port with a 400 text (`tlsRecordHeaderLooksLikeHTTP`); node would just
 * drop the connection. The first bytes are looked at before the TLS layer gets the socket; a TLS record (0x16)
 * goes on untouched (node's TLS socket takes over what was read), and a request that looks like HTTP gets Go's text.
 */
function answerPlainHttpOnTls(server: Server): void {
  const tlsListeners = server.listeners("connection") as ((socket: Socket) => void)[];
  server.removeAllListeners("connection");
  server.on("connection", (socket: Socket) => {
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      if (head[0] !== 0x16 && head.length < 5) return;
      socket.removeListener("data", onData);
      socket.pause();
      if (head[0] !== 0x16 && HTTP_STARTS.has(head.subarray(0, 5).toString("latin1"))) {
        socket.end(PLAIN_HTTP_ON_TLS);
        return;
      }
      socket.unshift(head);
      for (const listener of tlsListeners) listener.call(server, socket);
    };
    socket.on("data", onData);
  });
}

function listenError(error: NodeJS.ErrnoException, config: Config): ListenError {
  const text = goErrnoText(error);
  const where = config.socket !== "" ? `unix ${config.socket}` : `tcp ${config.ip}:${config.port}`;
  return new ListenError(`listen ${where}: bind: ${text}`, { cause: error });
}

/** One request as read off the wire, by node's parser or by {@link readRawRequest} for methods node refuses. */
interface WireRequest {
  readonly method: string;
  readonly url: string;
  readonly httpVersion: string;
  readonly rawHeaders: readonly string[];
  readonly body: Buffer;
  /** The body not read yet (`Expect: 100-continue`, http1-connection.ts): see `HookRequest.readBody`. */
  readonly readBody?: () => Promise<Buffer>;
  readonly remoteAddr: string;
}

/** What goes back on the wire. */
type Send = (status: number, headers: Record<string, string | string[]>, body: string | Buffer) => void;

async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  options: { config: Config; ctx: HandlerContext },
): Promise<void> {
  const { config, ctx } = options;
  if (req.httpVersion === "1.1" && req.headers.host === undefined) {
    // Go's readRequest refuses it before any handler runs, with its own text.
    req.socket.end(goErrorResponse("400 Bad Request: missing required Host header"));
    return;
  }
  await ctx.ready;
  const { chunks, tooLarge } = await readBody(req, config.maxBodyBytes);
  if (tooLarge) {
    res.writeHead(413, { "Content-Type": "text/plain; charset=utf-8", Connection: "close" });
    res.end("Request body too large.");
    return;
  }
  await serveWire(
    {
      method: req.method ?? "GET",
      url: req.url ?? "/",
      httpVersion: req.httpVersion,
      rawHeaders: req.rawHeaders,
      body: Buffer.concat(chunks),
      remoteAddr: peerAddress(req.socket),
    },
    {
      config,
      ctx,
      send: (status, headers, body) => {
        res.writeHead(status, goStatusReason(status), headers);
        // node writes the head and a string body in one write(), but a Buffer body as a second chunk through
        // writev: 1.5x the requests/s on small answers (bench/webhook/README.md). latin1 maps bytes 1:1.
        if (typeof body === "string") res.end(body);
        else if (body.length <= SMALL_BODY) res.end(body.toString("latin1"), "latin1");
        else res.end(body);
      },
    },
  );
}

function peerAddress(socket: Socket): string {
  return `${socket.remoteFamily === "IPv6" ? `[${socket.remoteAddress}]` : socket.remoteAddress}:${socket.remotePort}`;
}

/** Every value of each header, under its lower-cased name (callers take `[0]`, as Go's `Header.Get`). */
function headerValues(rawHeaders: readonly string[]): Record<string, string[]> {
  const headers: Record<string, string[]> = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] as string).toLowerCase();
    const values = headers[name] ?? [];
    values.push(rawHeaders[i + 1] as string);
    headers[name] = values;
  }
  return headers;
}

async function serveWire(
  req: WireRequest,
  options: { config: Config; ctx: HandlerContext; send: Send },
): Promise<void> {
  const { config, ctx, send } = options;
  const url = req.url;
  const q = url.indexOf("?");
  const requestHeaders = headerValues(req.rawHeaders);
  // The request id only appears in log lines; no log, no id (upstream's middleware makes one regardless).
  let rid = ctx.verbose ? randomUUID().slice(0, 6) : "";
  const given = requestHeaders["x-request-id"]?.[0];
  if (config.xRequestId && given !== undefined && given !== "") {
    rid = config.xRequestIdLimit > 0 ? given.slice(0, config.xRequestIdLimit) : given;
  }
  const started = ctx.verbose ? performance.now() : 0;
  const path = q < 0 ? url : url.slice(0, q);
  const routed = path === "/" || path.startsWith(config.urlprefix === "" ? "/" : `/${config.urlprefix}/`);
  // Upstream's -debug dump reads the whole request first (httputil.DumpRequest), body included.
  const dumps = ctx.debug && routed;
  const requestBody = dumps && req.readBody !== undefined ? await req.readBody() : req.body;
  const readBody = dumps ? undefined : req.readBody;
  if (dumps) {
    ctx.writeRaw(
      dumpRequest(
        {
          method: req.method,
          url,
          httpVersion: req.httpVersion,
          rawHeaders: req.rawHeaders,
          body: requestBody,
        },
        rid,
      ),
    );
  }
  let response: Awaited<ReturnType<typeof handleRequest>>;
  try {
    response = await handleRequest(
      {
        method: req.method,
        path,
        query: q < 0 ? "" : url.slice(q + 1),
        headers: requestHeaders,
        body: requestBody,
        ...(readBody === undefined ? {} : { readBody }),
        remoteAddr: req.remoteAddr,
        requestId: rid,
      },
      ctx,
    );
  } catch (error) {
    ctx.log(`[${rid}] panic: ${(error as Error).stack ?? String(error)}`);
    response = { status: 500, headers: [], body: "Internal Server Error" };
  }
  const body = response.body;
  const length = typeof body === "string" ? Buffer.byteLength(body) : body.length;
  // Go's order on the wire: the handler's headers sorted, then Content-Length and a Content-Type Go sniffed itself.
  const sniffedAt = response.headers.findIndex(
    ([k, v], i) =>
      k === "Content-Type" &&
      (response.sniffedContentType
        ? i === response.headers.length - 1
        : !response.explicitContentType && SNIFFABLE_TYPE.test(v)),
  );
  const own = response.headers
    .filter((_, i) => i !== sniffedAt)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of own) {
    const existing = headers[k];
    headers[k] = existing === undefined ? v : Array.isArray(existing) ? [...existing, v] : [existing, v];
  }
  headers["Content-Length"] = String(length);
  if (sniffedAt >= 0) headers["Content-Type"] = (response.headers[sniffedAt] as readonly [string, string])[1];
  send(response.status, headers, body);
  if (response.unrouted) return;
  if (ctx.debug) {
    // Go adds a sniffed Content-Type on the wire only; the dump shows the headers the handler set.
    const set = response.sniffedContentType
      ? response.headers.slice(0, -1)
      : response.headers.filter(
          ([k, v]) => response.explicitContentType || !(k === "Content-Type" && SNIFFABLE_TYPE.test(v)),
        );
    ctx.writeRaw(dumpResponse({ ...response, headers: set }, rid));
  }
  if (!ctx.verbose) return;
  const elapsed = goDuration((performance.now() - started) * 1e6);
  const host = requestHeaders.host?.[0] ?? "";
  ctx.log(
    `[${rid}] ${String(response.status).padStart(3, "0")} | ${iBytes(length)} | ${elapsed} | ${host} | ${req.method} ${url}`,
  );
}

/**
 * Go's server takes any token as a method (`post`, `Get`, `PURGE2`); node's parser refuses the ones it does not know
 * with `HPE_INVALID_METHOD` before any handler runs. Upstream then answers 405 (or runs a hook without a method
 * list), so such a request is read here from the bytes node saw, and the answer written by hand, closing the
 * connection. Anything else keeps node's 400.
 */
function onClientError(
  error: Error & { code?: string; reason?: string; rawPacket?: Buffer; bytesParsed?: number },
  socket: Duplex,
  options: { config: Config; ctx: HandlerContext },
): void {
  if (error.code !== "HPE_INVALID_METHOD" || error.rawPacket === undefined || !(socket instanceof Socket)) {
    if (!socket.writable || (socket as Socket).bytesWritten !== 0) {
      socket.destroy();
      return;
    }
    // node's own handler writes and destroys at once, which can lose the answer to a reset.
    endAndClose(socket, nodeErrorResponse(error));
    return;
  }
  // node's parser stays attached and would report every further chunk as another error.
  socket.removeAllListeners("data");
  const lineStart = error.rawPacket.lastIndexOf(0x0a, Math.max(0, (error.bytesParsed ?? 0) - 1)) + 1;
  let buffered = error.rawPacket.subarray(lineStart);
  const { config, ctx } = options;
  const attempt = () => {
    const parsed = readRawRequest(buffered, config.maxBodyBytes);
    if (parsed === "incomplete") return;
    socket.removeListener("data", onData);
    if (parsed === "invalid") {
      socket.end(goErrorResponse("400 Bad Request"));
      return;
    }
    if (parsed === "too large") {
      // The same answer as the regular path's body limit (serve, above).
      const body = "Request body too large.";
      socket.end(
        `HTTP/1.1 413 Payload Too Large\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      );
      return;
    }
    const send: Send = (status, headers, body) => {
      let head = `HTTP/1.1 ${status} ${goStatusReason(status)}\r\n`;
      for (const [k, v] of Object.entries(headers)) for (const one of [v].flat()) head += `${k}: ${one}\r\n`;
      head += `Date: ${new Date().toUTCString()}\r\nConnection: close\r\n\r\n`;
      socket.end(
        Buffer.concat([Buffer.from(head, "latin1"), typeof body === "string" ? Buffer.from(body) : body]),
      );
    };
    void ctx.ready
      .then(() => serveWire({ ...parsed, remoteAddr: peerAddress(socket) }, { config, ctx, send }))
      .catch(() => socket.destroy());
  };
  const onData = (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    attempt();
  };
  socket.on("data", onData);
  attempt();
}

function nodeErrorResponse(error: { code?: string; reason?: string }): string {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return goErrorResponse("431 Request Header Fields Too Large");
    case "HPE_INVALID_VERSION":
      return goErrorResponse("505 HTTP Version Not Supported: unsupported protocol version");
    case "HPE_INVALID_TRANSFER_ENCODING":
      // Go refuses a transfer coding other than chunked with 501; node also refuses Transfer-Encoding beside
      // Content-Length (a smuggling guard Go does not have), kept as a 400.
      return /content-length/i.test(error.reason ?? "")
        ? goErrorResponse("400 Bad Request")
        : goErrorResponse("501 Not Implemented", "Unsupported transfer encoding");
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return goErrorResponse("413 Payload Too Large");
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return goErrorResponse("408 Request Timeout");
    default:
      return goErrorResponse("400 Bad Request");
  }
}

/**
 * Parses one HTTP/1.x request (request line, headers, a `Content-Length` or chunked body) from `data`.
 * Returns "incomplete" while more bytes are needed, "invalid" for what Go would refuse with 400, and "too large" for
 * a body past `maxBodyBytes` (when > 0), declared or chunked.
 */
function readRawRequest(
  data: Buffer,
  maxBodyBytes = 0,
): Omit<WireRequest, "remoteAddr"> | "incomplete" | "invalid" | "too large" {
  const end = data.indexOf("\r\n\r\n");
  if (end < 0) return data.length > 1 << 20 ? "invalid" : "incomplete";
  const [line = "", ...headerLines] = data.subarray(0, end).toString("latin1").split("\r\n");
  const m = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+) (\S+) HTTP\/(1\.[01])$/.exec(line);
  if (m === null) return "invalid";
  const rawHeaders: string[] = [];
  for (const h of headerLines) {
    const colon = h.indexOf(":");
    if (colon <= 0) return "invalid";
    rawHeaders.push(h.slice(0, colon).trim(), h.slice(colon + 1).trim());
  }
  const headers = headerValues(rawHeaders);
  const rest = data.subarray(end + 4);
  let body: Buffer;
  if (headers["transfer-encoding"]?.[0]?.toLowerCase() === "chunked") {
    const chunked = dechunk(rest);
    if (maxBodyBytes > 0 && chunked.size > maxBodyBytes) return "too large";
    if (!chunked.complete) return "incomplete";
    body = Buffer.concat(chunked.parts);
  } else {
    const length = Number(headers["content-length"]?.[0] ?? "0");
    if (!Number.isSafeInteger(length) || length < 0) return "invalid";
    if (maxBodyBytes > 0 && length > maxBodyBytes) return "too large";
    if (rest.length < length) return "incomplete";
    body = rest.subarray(0, length);
  }
  return { method: m[1] as string, url: m[2] as string, httpVersion: m[3] as string, rawHeaders, body };
}

/**
 * Decodes a chunked body as far as it has arrived: its chunks, their total size (also counting a chunk whose size
 * line has arrived but not all its bytes, so a body limit trips early) and whether the last chunk was seen.
 */
function dechunk(data: Buffer): { parts: Buffer[]; size: number; complete: boolean } {
  const parts: Buffer[] = [];
  let size = 0;
  let at = 0;
  for (;;) {
    const eol = data.indexOf("\r\n", at);
    if (eol < 0) return { parts, size, complete: false };
    const next = Number.parseInt(data.subarray(at, eol).toString("latin1"), 16);
    if (Number.isNaN(next)) return { parts, size, complete: true };
    if (next === 0) return { parts, size, complete: data.indexOf("\r\n", eol + 2) >= 0 };
    size += next;
    if (data.length < eol + 2 + next + 2) return { parts, size, complete: false };
    parts.push(data.subarray(eol + 2, eol + 2 + next));
    at = eol + 2 + next + 2;
  }
}

/** Collects the body; past `limit` bytes (when > 0) stops keeping it and reports it too large. */
function readBody(req: IncomingMessage, limit: number): Promise<{ chunks: Buffer[]; tooLarge: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      // Beyond upstream (off by default): a body limit, so one request cannot exhaust memory.
      if (tooLarge) return;
      if (limit > 0 && size > limit) {
        tooLarge = true;
        resolve({ chunks, tooLarge });
      } else chunks.push(chunk);
    });
    req.on("end", () => resolve({ chunks, tooLarge }));
    req.on("error", reject);
  });
}

function cipherOption(goNames: string): { ciphers?: string } {
  const ciphers = openSslCiphers(goNames);
  return ciphers === undefined ? {} : { ciphers };
}

/**
 * `-tls-min-version` as node names it; empty is upstream's default, TLS 1.2.
 *
 * @throws {TlsError} for a version upstream does not know
 */
export function tlsVersion(text: string): SecureVersion {
  const versions: Record<string, SecureVersion> = {
    "": "TLSv1.2",
    "1.0": "TLSv1",
    "1.1": "TLSv1.1",
    "1.2": "TLSv1.2",
    "1.3": "TLSv1.3",
  };
  const v = versions[text];
  if (v === undefined) throw new TlsError(`error: unknown minimum TLS version: ${text}`);
  return v;
}
