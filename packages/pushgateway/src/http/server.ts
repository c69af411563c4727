import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { Duplex } from "node:stream";
import { constants, gzipSync } from "node:zlib";
import { cleanPath } from "@local/go-compat/clean-path";
import {
  answerClientError,
  endAndClose,
  GO_PARSER_LIMITS,
  goErrorResponse,
  refuseMissingHost,
} from "@local/go-compat/http-refusal";
import { WebConfigError } from "../errors.js";
import { decodeUtf8Lossless } from "../exposition/lossless-utf8.js";
import { bareQuit } from "../handlers/lifecycle.js";
import { type GatewayContext, type GatewayResponse, textError } from "../handlers/responses.js";
import { handleRequest } from "../handlers/routes.js";
import type { WebGuard } from "../web/web-guard.js";
import { DatedResponse } from "./dated-response.js";
import { goRedirect } from "./go-redirect.js";
import { upstreamRedirect } from "./router-redirect.js";
import type { TlsServer } from "./serve-tls.js";
import { writeGzipped } from "./write-gzipped.js";

/** How long a streamed answer runs before it gives other requests a turn of the event loop. */
const TURN_MS = 10;

/**
 * Waits until the response can take more (`drain`) or is gone (`close`), then removes both listeners: a reader that
 * stalls on every chunk must not pile up listeners (node warns past ten), nor keep them after the answer.
 */
function writable(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/** Scrapes up to this size are gzip-compressed in one go (level 1: about 1 ms). */
const SYNC_GZIP_BYTES = 256 * 1024;

/** net/http's response buffer: a handler's whole answer within it is sent with Content-Length. */
const GO_RESPONSE_BUFFER = 4096;

/**
 * Starts the server on `host`:`port`, or on an inherited listening socket `fd` (systemd socket activation); `prefix`
 * is the route prefix (`--web.route-prefix`), without a trailing slash.
 */
export async function startServer(options: {
  host: string;
  port: number;
  fd?: number;
  prefix: string;
  web: WebGuard | undefined;
  ctx: GatewayContext;
}): Promise<Server> {
  // Go's server handles a connection's requests one after the other; node emits pipelined ones at once, and a
  // request with a shorter body could reach the write queue (handlers/write-queue.ts) before the one sent before it.
  // So an HTTP/1.x request waits for the one before it on its connection (pipelining only: a client that waits for
  // each answer never finds one in flight).
  const inFlight = new WeakMap<object, Promise<void>>();
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    // A client that goes away mid-body rejects the body read: that request ends there, not the server.
    const handle = () =>
      serve(req, res, options).catch(() => {
        res.destroy();
      });
    if (req.httpVersionMajor !== 1) {
      void handle();
      return;
    }
    const before = inFlight.get(req.socket);
    const current = before === undefined ? handle() : before.then(handle);
    inFlight.set(req.socket, current);
    void current.then(() => {
      if (inFlight.get(req.socket) === current) inFlight.delete(req.socket);
    });
  };
  const tls = options.web?.config.initialTls;
  let server: Server;
  // TLS modules loaded only when TLS is configured: node:http2, node:https and node:tls cost a plain server about
  // 2 MiB of resident memory (bench/pushgateway/README.md).
  if (options.web !== undefined && tls !== undefined && options.web.config.initial.http2) {
    const { serveTls, tlsServerOptions } = await import("./serve-tls.js");
    const { createSecureServer } = await import("node:http2");
    // http_server_config.http2 (upstream's default): HTTP/2 offered by ALPN, HTTP/1.1 for the clients that do not
    // ask for it, as Go's server. node's HTTP/2 server hands HTTP/1.1 connections to http.Server's connection
    // handling, which reads these properties of the server it is given.
    // The listener gets node's HTTP/1.1 request and response objects, or their HTTP/2 compatibility counterparts,
    // which offer the same calls serve() makes (headers, url, body iteration, writeHead/write/end, streams); node's
    // types describe only the HTTP/2 ones, hence the cast.
    const h2 = createSecureServer(
      { ...tlsServerOptions(tls), allowHTTP1: true, Http1ServerResponse: DatedResponse },
      listener as never,
    );
    Object.assign(h2, GO_PARSER_LIMITS);
    server = serveTls(h2 as unknown as TlsServer, {
      config: options.web.config,
      initial: tls,
      log: options.web.log,
    });
  } else if (options.web !== undefined && tls !== undefined) {
    const { serveTls, tlsServerOptions } = await import("./serve-tls.js");
    const { createServer: createHttpsServer } = await import("node:https");
    server = serveTls(
      createHttpsServer(
        { ...tlsServerOptions(tls), ...GO_PARSER_LIMITS, ServerResponse: DatedResponse },
        listener,
      ),
      {
        config: options.web.config,
        initial: tls,
        log: options.web.log,
      },
    );
  } else {
    server = createHttpServer({ ...GO_PARSER_LIMITS, ServerResponse: DatedResponse }, listener);
  }
  // Go's refusal of a request it cannot read, then its closeWriteAndWait (go-compat, shared with webhook).
  server.on("clientError", (error: Error & { code?: string; reason?: string }, socket: Duplex) =>
    answerClientError(error, socket),
  );
  // A client may send its FIN right after the request (`printf ... | nc`, health checkers). Node's http.Server ends the
  // socket on that FIN unless `httpAllowHalfOpen` is set, and an answer written after an await (a gzip scrape, every
  // request in Redis mode) is then lost; Go's server reads the request, answers it, then closes (net/http's
  // conn.serve). With it set, node marks the in-flight response as the connection's last and ends the socket after it.
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  // Go's http.Server as upstream builds it has no idle timeout and sends no `Keep-Alive: timeout=5`; node's 5 s
  // default closes a pusher's or scraper's kept-alive connection under it, and a PUT or POST sent just then fails.
  server.keepAliveTimeout = 0;
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    const listening = () => {
      server.off("error", reject);
      resolve(server);
    };
    if (options.fd !== undefined) server.listen({ fd: options.fd }, listening);
    else server.listen(options.port, options.host, listening);
  });
}

async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  options: { prefix: string; web: WebGuard | undefined; ctx: GatewayContext },
): Promise<void> {
  // Go's readRequest refuses it before any handler runs, with its own text (go-compat).
  if (refuseMissingHost(req)) return;
  // `OPTIONS *` is answered by net/http itself (serverHandler: globalOptionsHandler), before any handler or auth.
  if (req.url === "*" && req.method === "OPTIONS") {
    req.resume();
    res.writeHead(200, { "Content-Length": "0" });
    res.end();
    return;
  }
  // An absolute-form target (`GET http://host/path`, as proxies send) is routed by its path, as Go's server does;
  // httprouter's redirects then name the whole URL (req.URL.String()), ServeMux's only the path.
  const absolute = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*)(.*)$/.exec(req.url ?? "/");
  const origin =
    absolute === null ? "" : (absolute[1] ?? "").replace(/^[^:]+/, (scheme) => scheme.toLowerCase());
  const url = absolute === null ? (req.url ?? "/") : (absolute[2] ?? "");
  const queryStart = url.indexOf("?");
  const rawPath = queryStart < 0 ? url : url.slice(0, queryStart);
  let path = percentDecode(rawPath);
  if (path === undefined) {
    // Go's server refuses a request line whose URL does not parse before any handler runs and before the body
    // (net/http server.go readRequest): its raw answer, then the close, as for a missing Host (go-compat), the body
    // included whatever the method. HTTP/2 has no Connection header (node refuses to send one).
    if (req.httpVersionMajor !== 2) {
      endAndClose(req.socket, goErrorResponse("400 Bad Request"));
      return;
    }
    req.resume();
    res.writeHead(400, { "Content-Type": "text/plain; charset=utf-8" });
    res.end("400 Bad Request");
    return;
  }
  if (options.web !== undefined && !(await guard(req, res, options.web, options.prefix))) return;
  // Any other method on `*` reaches ServeMux, which refuses it: 400, empty, and the connection closed.
  if (req.url === "*") {
    req.resume();
    res.writeHead(400, {
      ...(req.method === "HEAD" ? {} : { "Content-Length": "0" }),
      ...(req.httpVersionMajor === 2 ? {} : { Connection: "close" }),
    });
    res.end();
    return;
  }
  // With --push.max-body-bytes, keep at most one byte past the limit: enough for the handler's 413, bounded memory.
  const cap = options.ctx.maxBodyBytes > 0 ? options.ctx.maxBodyBytes + 1 : Number.POSITIVE_INFINITY;
  const chunks: Buffer[] = [];
  let kept = 0;
  for await (const chunk of req) {
    if (kept >= cap) continue;
    const buffer = (chunk as Buffer).subarray(0, cap - kept);
    chunks.push(buffer);
    kept += buffer.length;
  }
  const method = req.method ?? "GET";
  const rawQuery = queryStart < 0 ? "" : url.slice(queryStart + 1);
  // Go's ServeMux answers a path that is not clean (`//`, `.`, `..`) with 301 to the cleaned one; then upstream's
  // routers redirect a path a slash or a letter case off a route (router-redirect.ts).
  const clean = cleanPath(path);
  const routed =
    clean === path ? upstreamRedirect(method, path, { ...options.ctx, prefix: options.prefix }) : undefined;
  // httprouter's redirects name req.URL.String(): the absolute form's origin, and a `?` with nothing after it
  // (ForceQuery); ServeMux's a new URL of the path and the query.
  const redirect =
    clean !== path || routed?.router === false
      ? { path: routed?.path ?? clean, status: 301 as const, origin: "", forceQuery: false }
      : routed && { ...routed, origin, forceQuery: queryStart >= 0 };
  if (redirect !== undefined) {
    const answer = goRedirect(method, { ...redirect, query: rawQuery });
    const body = answer.body as string;
    res.writeHead(answer.status, {
      ...answer.headers,
      ...(method === "HEAD" ? {} : { "Content-Length": String(Buffer.byteLength(body)) }),
    });
    res.end(body);
    return;
  }
  let prefixed = false;
  if (options.prefix !== "") {
    // Upstream registers GET /-/quit outside the prefix, and nothing else there (main.go).
    const outside = path === "/-/quit" ? bareQuit(method) : textError(404, "404 page not found");
    if (!path.startsWith(`${options.prefix}/`)) return writeSimple(res, outside);
    path = path.slice(options.prefix.length);
    prefixed = true;
  }
  const headers: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v[0] : v;
  let response: Awaited<ReturnType<typeof handleRequest>>;
  const started = performance.now();
  try {
    response = await handleRequest(
      {
        method,
        path,
        prefixed,
        query: queryStart < 0 ? undefined : url.slice(queryStart + 1),
        headers,
        body: Buffer.concat(chunks),
      },
      options.ctx,
    );
  } catch (error) {
    response = {
      status: 500,
      headers: { "Content-Type": "text/plain; charset=utf-8" },
      body: `${(error as Error).message}\n`,
    };
  }
  if ((req.method === "PUT" || req.method === "POST") && path.startsWith("/metrics/job"))
    options.ctx.onPush(req.method, (performance.now() - started) / 1000, approximateRequestSize(req));
  const outHeaders = { ...response.headers };
  if (outHeaders.Location?.startsWith("/")) outHeaders.Location = `${options.prefix}${outHeaders.Location}`;
  const { body } = response;
  if (response.gzip) {
    const chunks: Iterable<string | Buffer> =
      typeof body === "string" || Buffer.isBuffer(body) ? [body] : body;
    // A small answer (a scrape of a small store) is compressed at once: no turn of the event loop, so it does not
    // wait behind the pushes queued meanwhile (bench/pushgateway); sent with Content-Length when the compressed
    // answer fits Go's 4 KiB response buffer, as net/http does for promhttp's.
    const iterator = chunks[Symbol.iterator]();
    const head: Buffer[] = [];
    let size = 0;
    let next = iterator.next();
    while (!next.done && size <= SYNC_GZIP_BYTES) {
      const chunk = typeof next.value === "string" ? Buffer.from(next.value) : next.value;
      head.push(chunk);
      size += chunk.length;
      next = iterator.next();
    }
    if (next.done && size <= SYNC_GZIP_BYTES) {
      const zipped = gzipSync(Buffer.concat(head), { level: constants.Z_BEST_SPEED });
      res.writeHead(response.status, {
        ...outHeaders,
        "Content-Encoding": "gzip",
        ...(zipped.length <= GO_RESPONSE_BUFFER ? { "Content-Length": String(zipped.length) } : {}),
      });
      res.end(zipped);
      return;
    }
    // promhttp compresses the scrape as it writes it; so do we, chunk by chunk with backpressure.
    res.writeHead(response.status, { ...outHeaders, "Content-Encoding": "gzip" });
    const rest = next;
    function* all(): Generator<string | Buffer> {
      yield* head;
      if (rest.done) return;
      yield rest.value;
      for (let n = iterator.next(); !n.done; n = iterator.next()) yield n.value;
    }
    await writeGzipped(res, all());
    return;
  }
  if (typeof body === "string" || Buffer.isBuffer(body)) {
    const length = typeof body === "string" ? Buffer.byteLength(body) : body.length;
    res.writeHead(response.status, { ...outHeaders, "Content-Length": String(length) });
    res.end(body);
    return;
  }
  // Chunks (a scrape) are streamed with backpressure, as Go's server sends a large body chunked: the whole
  // exposition never exists as one string.
  res.writeHead(response.status, outHeaders);
  let turn = performance.now();
  for (const chunk of body) {
    if (!res.write(chunk)) await writable(res);
    if (res.destroyed) return;
    // A reader that keeps up never makes res.write wait: let other requests (/-/healthy) in every few ms.
    if (performance.now() - turn > TURN_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      turn = performance.now();
    }
  }
  res.end();
}

/**
 * exporter-toolkit's `webHandler.ServeHTTP` before the gateway's handler: the file read again (500 when it no longer
 * parses), the rate limit (429), the configured headers, basic auth (401). Whether the request may go on.
 */
async function guard(
  req: IncomingMessage,
  res: ServerResponse,
  web: WebGuard,
  prefix: string,
): Promise<boolean> {
  const config = web.config.forRequest();
  const refuse = (status: number, text: string, headers: Record<string, string> = {}) => {
    // Go's http.Error.
    res.writeHead(status, {
      ...headers,
      "Content-Type": "text/plain; charset=utf-8",
      "X-Content-Type-Options": "nosniff",
    });
    res.end(`${text}\n`);
    return false;
  };
  if (config instanceof WebConfigError) {
    web.log("error", "Unable to parse configuration", { err: config.message });
    return refuse(500, "Internal Server Error");
  }
  if (web.limiter !== undefined && !web.limiter.allow()) return refuse(429, "Too Many Requests");
  for (const [name, value] of config.headers) res.setHeader(name, value);
  if (config.users.size === 0) return true;
  if (web.exemptProbes) {
    // An absolute-form target (`GET http://host/-/healthy`) is a probe of its path too.
    const url = (req.url ?? "/").replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/, "");
    const path = url.slice(0, url.indexOf("?") < 0 ? url.length : url.indexOf("?"));
    if (
      (req.method === "GET" || req.method === "HEAD") &&
      (path === `${prefix}/-/healthy` || path === `${prefix}/-/ready`)
    )
      return true;
  }
  if (await web.auth.check(config.users, req.headers.authorization)) return true;
  return refuse(401, "Unauthorized", { "WWW-Authenticate": "Basic" });
}

/**
 * promhttp's `computeApproximateRequestSize` (client_golang promhttp/instrument_server.go), which upstream's
 * `pushgateway_http_push_size_bytes` observes: URL, method, protocol, header names and values (Go keeps Host out of
 * the header map and counts it once), host, and the declared Content-Length.
 */
function approximateRequestSize(req: IncomingMessage): number {
  let size = (req.url ?? "").length + (req.method ?? "").length + `HTTP/${req.httpVersion}`.length;
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] ?? "";
    if (name.toLowerCase() === "host") continue;
    size += name.length + (req.rawHeaders[i + 1] ?? "").length;
  }
  size += (req.headers.host ?? "").length;
  const length = Number(req.headers["content-length"]);
  if (Number.isFinite(length)) size += length;
  return size;
}

/** A small answer with a string body, as Go sends it: with Content-Length. */
function writeSimple(res: ServerResponse, response: GatewayResponse): void {
  const body = response.body as string;
  res.writeHead(response.status, { ...response.headers, "Content-Length": String(Buffer.byteLength(body)) });
  res.end(body);
}

/**
 * The path percent-decoded as Go's url.PathUnescape does; undefined for a malformed escape (`%zz`), which Go's server
 * refuses. Go keeps the bytes of an escape that is not UTF-8 (`%FF`); they are kept here as escapes
 * (exposition/lossless-utf8.ts), so a push naming them is refused as upstream refuses it, not stored altered.
 */
function percentDecode(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    if (/%(?![0-9A-Fa-f]{2})/.test(raw)) return undefined;
    const bytes: number[] = [];
    const utf8 = Buffer.from(raw, "utf8");
    for (let i = 0; i < utf8.length; i++) {
      if (utf8[i] === 0x25) {
        bytes.push(Number.parseInt(String.fromCharCode(utf8[i + 1] ?? 0, utf8[i + 2] ?? 0), 16));
        i += 2;
      } else bytes.push(utf8[i] ?? 0);
    }
    return decodeUtf8Lossless(Uint8Array.from(bytes));
  }
}
