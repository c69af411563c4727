import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { SecureVersion } from "node:tls";
import { dumpRequest, dumpResponse } from "./debug-dump.js";
import { ListenError, TlsError } from "./errors.js";
import type { Config } from "./flags.js";
import { goDuration, iBytes } from "./go-log-format.js";
import { type HandlerContext, handleRequest } from "./handler.js";
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
export async function startServer(config: Config, ctx: HandlerContext): Promise<Server> {
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
      throw new TlsError(goOpenError(cause as NodeJS.ErrnoException), { cause });
    }
    try {
      server = createHttpsServer(
        {
          cert,
          key,
          minVersion: tlsVersion(config.tlsMinVersion),
          ALPNProtocols: ["http/1.1"],
          ...cipherOption(config.cipherSuites),
        },
        listener,
      );
    } catch (cause) {
      throw new TlsError(`tls: ${(cause as Error).message}`, { cause });
    }
  } else server = createHttpServer(listener);
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

const ERRNO_TEXT: Readonly<Record<string, string>> = {
  EADDRINUSE: "address already in use",
  EACCES: "permission denied",
  EADDRNOTAVAIL: "cannot assign requested address",
  ENOENT: "no such file or directory",
};

function listenError(error: NodeJS.ErrnoException, config: Config): ListenError {
  const text = ERRNO_TEXT[error.code ?? ""] ?? error.message;
  const where = config.socket !== "" ? `unix ${config.socket}` : `tcp ${config.ip}:${config.port}`;
  return new ListenError(`listen ${where}: bind: ${text}`, { cause: error });
}

function goOpenError(error: NodeJS.ErrnoException): string {
  return `open ${error.path ?? ""}: ${ERRNO_TEXT[error.code ?? ""] ?? error.message}`;
}

async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  options: { config: Config; ctx: HandlerContext },
): Promise<void> {
  const { config, ctx } = options;
  await ctx.ready;
  const { chunks, tooLarge } = await readBody(req, config.maxBodyBytes);
  if (tooLarge) {
    res.writeHead(413, { "Content-Type": "text/plain; charset=utf-8", Connection: "close" });
    res.end("Request body too large.");
    return;
  }
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  let rid = randomUUID().slice(0, 6);
  const given = req.headers["x-request-id"];
  if (config.xRequestId && typeof given === "string" && given !== "") {
    rid = config.xRequestIdLimit > 0 ? given.slice(0, config.xRequestIdLimit) : given;
  }
  const started = performance.now();
  const requestBody = Buffer.concat(chunks);
  const path = q < 0 ? url : url.slice(0, q);
  const routed = path === "/" || path.startsWith(config.urlprefix === "" ? "/" : `/${config.urlprefix}/`);
  if (ctx.debug && routed) {
    ctx.writeRaw(
      dumpRequest(
        {
          method: req.method ?? "GET",
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
        method: req.method ?? "GET",
        path,
        query: q < 0 ? "" : url.slice(q + 1),
        headers: req.headers,
        body: requestBody,
        remoteAddr: `${req.socket.remoteFamily === "IPv6" ? `[${req.socket.remoteAddress}]` : req.socket.remoteAddress}:${req.socket.remotePort}`,
        requestId: rid,
      },
      ctx,
    );
  } catch (error) {
    ctx.log(`[${rid}] panic: ${(error as Error).stack ?? String(error)}`);
    response = { status: 500, headers: [], body: "Internal Server Error" };
  }
  const body = Buffer.from(response.body);
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of response.headers) {
    const existing = headers[k];
    headers[k] = existing === undefined ? v : Array.isArray(existing) ? [...existing, v] : [existing, v];
  }
  headers["Content-Length"] = String(body.length);
  res.writeHead(response.status, headers);
  res.end(body);
  if (response.unrouted) return;
  if (ctx.debug) {
    // Go adds a sniffed Content-Type on the wire only; the dump shows the headers the handler set.
    const set = response.headers.filter(
      ([k, v]) =>
        response.explicitContentType ||
        !(k === "Content-Type" && /^text\/(plain|html); charset=utf-8$/.test(v)),
    );
    ctx.writeRaw(dumpResponse({ ...response, headers: set }, rid));
  }
  const elapsed = goDuration((performance.now() - started) * 1e6);
  ctx.log(
    `[${rid}] ${String(response.status).padStart(3, "0")} | ${iBytes(body.length)} | ${elapsed} | ${req.headers.host ?? ""} | ${req.method} ${url}`,
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

function cipherOption(goNames: string): { ciphers?: string } {
  const ciphers = openSslCiphers(goNames);
  return ciphers === undefined ? {} : { ciphers };
}

function tlsVersion(text: string): SecureVersion {
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
