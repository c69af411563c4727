import { randomUUID } from "node:crypto";
import { fstatSync, type Stats } from "node:fs";
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { goDuration } from "@local/go-compat/duration";
import { answerClientError, GO_PARSER_LIMITS, refuseMissingHost } from "@local/go-compat/http-refusal";
import { goErrnoText } from "@local/go-compat/os-error";
import { ListenError, TlsError } from "../errors.js";
import type { Config } from "../flags.js";
import { iBytes } from "../go/log-format.js";
import { goStatusReason } from "../go/status-text.js";
import { type HandlerContext, handleRequest } from "../handler.js";
import { type HookMetrics, UNKNOWN_HOOK } from "../metrics.js";
import { fileType } from "../regular-file.js";
import { type StreamedBody, writableSink } from "../response/streamed-body.js";
import { secondReadError } from "./body-reader.js";
import { BODY_TOO_LARGE, ONE_WRITE_BODY_BYTES } from "./body-too-large.js";
import { watchClientGone } from "./client-gone.js";
import { dumpRequest, dumpResponse } from "./debug-dump.js";
import { goWireHeaders, handlerSetHeaders, type WireHeaders } from "./go-framing.js";
import { Http1Connection, type Http1Options } from "./http1-connection.js";
import { type ListenAddress, listenAddress } from "./listen-address.js";
import { headerValues, utf8HeaderValues } from "./request-headers.js";
import { serveHttp1 } from "./serve-http1.js";
import { answerPlainHttpOnTls, goHandshakeError, secureContextOptions } from "./tls-setup.js";

/**
 * Starts the HTTP(S) server on the configured address, or on the listening socket `fd` systemd passed; resolves
 * with the server once it listens.
 *
 * @throws {TlsError} when `-secure` is set and the certificate or key cannot be loaded
 * @throws {ListenError} when the address cannot be bound, worded as Go's `net.Listen`
 */
export async function startServer(
  config: Config,
  ctx: HandlerContext,
  options: { nodeHttpOnly?: boolean; fd?: number } = {},
): Promise<Server> {
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    // A client that aborts mid-body must not take the server down.
    serve(req, res, { config, ctx }).catch(() => res.destroy());
  };
  let server: Server;
  if (config.secure) {
    const secure = await secureContextOptions(config);
    try {
      server = createHttpsServer({ ...secure, ALPNProtocols: ["http/1.1"], ...GO_PARSER_LIMITS }, listener);
    } catch (cause) {
      throw new TlsError(`tls: ${(cause as Error).message}`, { cause });
    }
    answerPlainHttpOnTls(server, connectionPeer);
    // Go's server logs a failed handshake (conn.serve), through the log -verbose enables; the TLS socket may have
    // lost its peer by then, the connection's was kept when it came.
    server.on("tlsClientError", (error: Error, socket: Socket & { _parent?: Socket }) =>
      ctx.log(
        `http: TLS handshake error from ${connectionPeer(socket._parent ?? socket)}: ${goHandshakeError(error)}`,
      ),
    );
  } else server = createHttpServer(GO_PARSER_LIMITS, listener);
  // Requests are read and answered by our own HTTP/1 reader (http1-connection.ts and the readers it uses), framed as Go
  // frames them; WEBHOOK_NODE_HTTP=1 leaves them to node:http instead (its llhttp parser, node's framing).
  const http1: Http1Options = {
    serve: async (req, respond, socket) => {
      await ctx.ready;
      await serveWire(req, { config, ctx, send: respond, remoteAddr: connectionPeer(socket), socket });
    },
    maxBodyBytes: config.maxBodyBytes,
    event: config.secure ? "secureConnection" : "connection",
    onTooLarge: (path) => ctx.metrics?.request(hookLabel(path, ctx), "body_too_large"),
  };
  if (options.nodeHttpOnly !== true) serveHttp1(server, http1);
  // Go's http.Server as upstream builds it has no idle timeout: a kept-alive connection stays open until the client
  // closes it, and no `Keep-Alive: timeout=5` header is sent. node's 5 s default also races proxies that reuse an
  // upstream connection just as node closes it (their 502s on idle reuse).
  server.keepAliveTimeout = 0;
  server.on("clientError", (error: Error, socket: Duplex) => onClientError(error, socket, { http1, server }));
  const tcp =
    options.fd === undefined && config.socket === ""
      ? await listenAddress(config.ip, config.port)
      : undefined;
  if (options.fd !== undefined) refuseUnlessSocket(options.fd);
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) =>
      reject(
        options.fd === undefined
          ? listenError(error, tcp ?? config.socket)
          : activatedSocketError(options.fd, error),
      );
    server.once("error", failed);
    const ready = () => {
      server.off("error", failed);
      resolve(server);
    };
    // A socket systemd passed (socket activation) replaces -ip, -port and -socket, as upstream 2.8.2.
    if (options.fd !== undefined) server.listen({ fd: options.fd }, ready);
    else if (config.socket !== "") server.listen(config.socket, ready);
    else if (tcp?.host === undefined) server.listen(tcp?.port, ready);
    else server.listen(tcp.port, tcp.host, ready);
  });
}

/**
 * Socket activation replaces -ip, -port and -socket, so a descriptor systemd passed that is no socket is refused
 * naming it, not the address flags it ignores.
 *
 * @throws {ListenError} naming the descriptor and what it is
 */
function refuseUnlessSocket(fd: number): void {
  let stats: Stats;
  try {
    stats = fstatSync(fd);
  } catch (cause) {
    throw activatedSocketError(fd, cause as NodeJS.ErrnoException);
  }
  if (stats.isSocket()) return;
  throw new ListenError(
    `the socket systemd passed (file descriptor ${fd}, LISTEN_FDS) is ${fileType(stats)}, not a socket; check the socket unit that starts webhook`,
  );
}

function activatedSocketError(fd: number, error: NodeJS.ErrnoException): ListenError {
  return new ListenError(
    `the socket systemd passed (file descriptor ${fd}, LISTEN_FDS) cannot listen: ${goErrnoText(error)}; check the socket unit that starts webhook`,
    { cause: error },
  );
}

function listenError(error: NodeJS.ErrnoException, at: ListenAddress | string): ListenError {
  const text = goErrnoText(error);
  const where = typeof at === "string" ? `unix ${at}` : `tcp ${at.display}`;
  return new ListenError(`listen ${where}: bind: ${text}`, { cause: error });
}

/** One request as read off the wire, by our reader (http1-connection.ts) or by node's parser. */
interface WireRequest {
  readonly method: string;
  readonly url: string;
  /** The path and query our reader took from the target (node's parser leaves that to `url`). */
  readonly path?: string;
  readonly query?: string;
  readonly httpVersion: string;
  readonly rawHeaders: readonly string[];
  readonly body: Buffer;
  /** The body not read yet (`Expect: 100-continue`, http1-connection.ts): see `HookRequest.readBody`. */
  readonly readBody?: (() => Promise<Buffer>) | undefined;
  /** See `HookRequest.bodyError` (our reader only: node's parser refuses a broken body itself). */
  readonly bodyError?: () => string | undefined;
}

/** What goes back on the wire. */
type Send = (status: number, headers: WireHeaders, body: string | Buffer, stream?: StreamedBody) => void;

async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  options: { config: Config; ctx: HandlerContext },
): Promise<void> {
  const { config, ctx } = options;
  // Go's readRequest refuses it before any handler runs, with its own text (go-compat).
  if (refuseMissingHost(req)) return;
  await ctx.ready;
  const { chunks, tooLarge } = await readBody(req, config.maxBodyBytes);
  if (tooLarge) {
    const url = req.url ?? "/";
    ctx.metrics?.request(hookLabel(url.split("?", 1)[0] as string, ctx), "body_too_large");
    res.writeHead(BODY_TOO_LARGE.status, { ...BODY_TOO_LARGE.headers, Connection: "close" });
    res.end(BODY_TOO_LARGE.body);
    return;
  }
  await serveWire(
    {
      method: req.method ?? "GET",
      url: req.url ?? "/",
      httpVersion: req.httpVersion,
      rawHeaders: req.rawHeaders,
      body: Buffer.concat(chunks),
    },
    {
      config,
      ctx,
      remoteAddr: peerAddress(req.socket),
      socket: req.socket,
      send: (status, headers, body, stream) => {
        res.writeHead(status, goStatusReason(status), headers);
        if (stream !== undefined) {
          void pumpToResponse(res, stream);
          return;
        }
        // node writes the head and a string body in one write(), but a Buffer body as a second chunk through
        // writev: 1.5x the requests/s on small answers (bench/webhook/README.md). latin1 maps bytes 1:1.
        if (typeof body === "string") res.end(body);
        else if (body.length <= ONE_WRITE_BODY_BYTES) res.end(body.toString("latin1"), "latin1");
        else res.end(body);
      },
    },
  );
}

/** A streamed body through node:http (WEBHOOK_NODE_HTTP=1): node frames it chunked and sends the trailers. */
async function pumpToResponse(res: ServerResponse, stream: StreamedBody): Promise<void> {
  const gone = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) gone.abort();
  };
  res.once("close", onClose);
  try {
    const trailers = await stream.pump(writableSink(res, { frame: (c) => [c], gone: gone.signal }));
    if (gone.signal.aborted) return;
    res.addTrailers(trailers);
    res.end();
  } catch {
    res.destroy();
  }
}

/**
 * The client's address as Go's `RemoteAddr`: `host:port`, an IPv4 client of a dual-stack listener (`::ffff:a.b.c.d`)
 * in its IPv4 form as Go's net.IP prints it, and `@` for a Unix socket's unnamed peer.
 */
function peerAddress(socket: Socket): string {
  const address = socket.remoteAddress;
  if (address === undefined) return "@";
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped !== undefined) return `${mapped}:${socket.remotePort}`;
  return `${socket.remoteFamily === "IPv6" ? `[${address}]` : address}:${socket.remotePort}`;
}

/** Each connection's peer address, worked out on its first request: it does not change while it is open. */
const peers = new WeakMap<Socket, string>();

function connectionPeer(socket: Socket): string {
  let address = peers.get(socket);
  if (address === undefined) {
    address = peerAddress(socket);
    peers.set(socket, address);
  }
  return address;
}

async function serveWire(
  req: WireRequest,
  options: { config: Config; ctx: HandlerContext; send: Send; remoteAddr: string; socket: Duplex },
): Promise<void> {
  const { config, ctx, send, remoteAddr, socket } = options;
  const url = req.url;
  const q = url.indexOf("?");
  const rawHeaders = utf8HeaderValues(req.rawHeaders);
  const requestHeaders = headerValues(rawHeaders);
  // The request id only appears in log lines; no log, no id (upstream's middleware makes one regardless).
  let rid = ctx.verbose ? randomUUID().slice(0, 6) : "";
  const given = requestHeaders["x-request-id"]?.[0];
  if (config.xRequestId && given !== undefined && given !== "") {
    // Go cuts the header's bytes, not its characters.
    rid =
      config.xRequestIdLimit > 0
        ? Buffer.from(given).subarray(0, config.xRequestIdLimit).toString("utf8")
        : given;
  }
  const started = ctx.verbose ? performance.now() : 0;
  const path = req.path ?? (q < 0 ? url : url.slice(0, q));
  const query = req.query ?? (q < 0 ? "" : url.slice(q + 1));
  const routed = path === "/" || path.startsWith(config.urlprefix === "" ? "/" : `/${config.urlprefix}/`);
  // Upstream's -debug dump reads the whole request first (httputil.DumpRequest), body included.
  const dumps = ctx.debug && routed;
  let requestBody = dumps && req.readBody !== undefined ? await req.readBody() : req.body;
  const readBody = dumps ? undefined : req.readBody;
  const dumpError = dumps ? req.bodyError?.() : undefined;
  let bodyError = req.bodyError;
  if (dumpError !== undefined) {
    // httputil.DumpRequest fails reading the body: the dumper logs that instead, and the handler then reads
    // nothing more from it, and gets the error of a second read (net/http body.readLocked).
    ctx.writeRaw(`[${rid}] Error dumping request for debugging: ${dumpError}\n`);
    requestBody = Buffer.alloc(0);
    const chunked = req.httpVersion !== "1.0" && requestHeaders["transfer-encoding"] !== undefined;
    const again = secondReadError(dumpError, chunked);
    bodyError = () => again;
  } else if (dumps) {
    ctx.writeRaw(
      dumpRequest(
        {
          method: req.method,
          url,
          httpVersion: req.httpVersion,
          rawHeaders,
          body: requestBody,
        },
        rid,
      ),
    );
  }
  let response: Awaited<ReturnType<typeof handleRequest>>;
  try {
    const metrics = ctx.metrics;
    // -metrics (beyond upstream): the scrape, on the same listener; not a hook request, so not logged as one.
    if (metrics !== undefined && path === "/metrics") response = await metricsResponse(req.method, metrics);
    else
      response = await handleRequest(
        {
          method: req.method,
          path,
          query,
          headers: requestHeaders,
          body: requestBody,
          readBody,
          bodyError,
          // -trusted-proxies: the client behind a trusted proxy, for rules, the remote-addr source and the log.
          remoteAddr:
            ctx.trustedProxies === undefined
              ? remoteAddr
              : ctx.trustedProxies.clientAddress(remoteAddr, requestHeaders),
          requestId: rid,
          onClientGone: (listener) => watchClientGone(socket, listener),
        },
        ctx,
      );
  } catch (error) {
    ctx.log(`[${rid}] panic: ${(error as Error).stack ?? String(error)}`);
    response = { status: 500, headers: [], body: "Internal Server Error" };
  }
  const { headers, length } = goWireHeaders(response);
  send(response.status, headers, response.body, response.stream);
  // net/http's own warning (serverHandler.ServeHTTP, Go 1.17+), logged once the handler returned, whatever the route.
  const semicolonWarning = () => {
    if (ctx.verbose && query.includes(";")) ctx.log(SEMICOLON_WARNING);
  };
  if (response.unrouted) {
    semicolonWarning();
    return;
  }
  if (ctx.debug) {
    // Go adds a sniffed Content-Type on the wire only; the dump shows the headers the handler set.
    const set = response.dumpHeaders ?? handlerSetHeaders(response);
    ctx.writeRaw(dumpResponse({ ...response, headers: set }, rid));
  }
  if (!ctx.verbose) return;
  const host = requestHeaders.host?.[0] ?? "";
  const access = (bytes: number) => {
    const elapsed = goDuration((performance.now() - started) * 1e6);
    ctx.log(
      `[${rid}] ${String(response.status).padStart(3, "0")} | ${iBytes(bytes)} | ${elapsed} | ${host} | ${req.method} ${url}`,
    );
  };
  // A streamed body (beyond upstream) is logged once it has ended, with what was written.
  if (response.stream === undefined) {
    access(length);
    semicolonWarning();
  } else {
    void response.stream.written.then((bytes) => {
      access(bytes);
      semicolonWarning();
    });
  }
}

const SEMICOLON_WARNING =
  "http: URL query contains semicolon, which is no longer a supported separator; parts of the query may be stripped when parsed; see golang.org/issue/25192";

/** `GET /metrics` (and HEAD): the Prometheus text format; any other method 405, as Go's ServeMux method patterns. */
async function metricsResponse(
  method: string,
  metrics: HookMetrics,
): Promise<Awaited<ReturnType<typeof handleRequest>>> {
  if (method !== "GET" && method !== "HEAD") {
    return {
      status: 405,
      headers: [
        ["Allow", "GET, HEAD"],
        ["Content-Type", "text/plain; charset=utf-8"],
      ],
      body: "Method Not Allowed\n",
      explicitContentType: true,
      unrouted: true,
    };
  }
  const { contentType, body } = await metrics.render();
  return {
    status: 200,
    headers: [["Content-Type", contentType]],
    body,
    explicitContentType: true,
    unrouted: true,
  };
}

/** The `hook` label of a request path: the id of a served hook, else the one value for all others. */
function hookLabel(path: string, ctx: HandlerContext): string {
  const prefix = ctx.urlPrefix === "" ? "/" : `/${ctx.urlPrefix}/`;
  if (!path.startsWith(prefix)) return UNKNOWN_HOOK;
  const id = path.slice(prefix.length);
  return ctx.hooks().has(id) ? id : UNKNOWN_HOOK;
}

/**
 * With WEBHOOK_NODE_HTTP=1 node's parser reads requests, and refuses methods it does not know (`post`, `Get`,
 * `PURGE2`) with `HPE_INVALID_METHOD` before any handler runs, where Go's server takes any token. Such a connection
 * is handed, from the refused request's first byte, to our own reader (http1-connection.ts), which serves it as
 * the default mode does. Anything else keeps node's answer, worded as Go's.
 */
function onClientError(
  error: Error & { code?: string; reason?: string; rawPacket?: Buffer; bytesParsed?: number },
  socket: Duplex,
  options: { http1: Http1Options; server: Server },
): void {
  if (error.code !== "HPE_INVALID_METHOD" || error.rawPacket === undefined || !(socket instanceof Socket)) {
    // node's own handler writes and destroys at once, which can lose the answer to a reset. The guard, table and
    // close both servers share (go-compat); a malformed chunked body, which Go meets only while the handler reads
    // and webhook then serves what came before it, gets Go's default 400 here in the node:http mode.
    answerClientError(error, socket);
    return;
  }
  // node's parser stays attached and would report every further chunk as another error.
  socket.removeAllListeners("data");
  socket.removeAllListeners("end");
  const lineStart = error.rawPacket.lastIndexOf(0x0a, Math.max(0, (error.bytesParsed ?? 0) - 1)) + 1;
  const { server } = options;
  new Http1Connection(
    socket,
    { ...options.http1, listening: () => server.listening },
    error.rawPacket.subarray(lineStart),
  );
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
