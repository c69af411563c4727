import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { Readable } from "node:stream";
import { ProxyError } from "../errors.js";
import type { ProxyRule } from "./network-env.js";

/** An answer as the HTTP client hands it on: status, headers, and a body read once. */
export interface HttpResponse {
  readonly status: number;
  /** Status 200–299. */
  readonly ok: boolean;
  readonly headers: { get(name: string): string | null; has(name: string): boolean };
  /** The body as a Node stream, or null when there is none. */
  readonly body: Readable | null;
  text(): Promise<string>;
  json(): Promise<unknown>;
  /** Drops the body unread, freeing the connection. */
  discard(): Promise<void>;
}

/** One GET as the HTTP client issues it: no redirects followed, the headers given, nothing else. */
export type Transport = (
  url: URL,
  init: { readonly headers: Record<string, string>; readonly timeoutMs?: number },
) => Promise<HttpResponse>;

/** A socket that sends and receives nothing for this long is dropped (and the request retried by the client). */
const IDLE_TIMEOUT_MS = 60_000;

let agents: { http: HttpAgent; https: HttpsAgent } | undefined;
const proxyAgents = new Map<string, Promise<HttpAgent>>();

/**
 * The agent that carries a request through `proxy`: CONNECT for https targets (`https-proxy-agent`), an absolute-URI
 * request for http ones (`http-proxy-agent`); one per proxy and target scheme, keep-alive. Loaded only when a proxy is
 * configured.
 */
function proxyAgent(proxy: URL, target: URL): Promise<HttpAgent> {
  const key = `${target.protocol}${proxy.href}`;
  let agent = proxyAgents.get(key);
  if (agent === undefined) {
    agent =
      target.protocol === "https:"
        ? import("https-proxy-agent").then(
            ({ HttpsProxyAgent }) => new HttpsProxyAgent(proxy, { keepAlive: true }),
          )
        : import("http-proxy-agent").then(
            ({ HttpProxyAgent }) => new HttpProxyAgent(proxy, { keepAlive: true }),
          );
    proxyAgents.set(key, agent);
  }
  return agent;
}

/**
 * GET over `node:http`/`node:https` with keep-alive, through the proxy `proxyRule` picks for each URL. The HTTP client
 * uses it instead of the global `fetch`: undici's fetch costs about 2 ms of CPU per request here against under 0.5 ms
 * for this (bench/toolmgr/README.md, "lock"), and `lock` of a whole project is hundreds of small requests on a CPU
 * shared with everything else. Redirects are never followed here; the client follows them by hand. A failure to
 * reach the proxy is a `ProxyError` naming the proxy, not the target.
 */
export function createNodeTransport(proxyRule: ProxyRule = () => ({ kind: "direct" })): Transport {
  return async (url, init) => {
    agents ??= { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
    const secure = url.protocol === "https:";
    const choice = proxyRule(url);
    const agent =
      choice.kind === "proxy" ? await proxyAgent(choice.url, url) : secure ? agents.https : agents.http;
    const send = secure ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      let incoming: IncomingMessage | undefined;
      const req = send(url, { method: "GET", headers: init.headers, agent }, (res) => {
        incoming = res;
        resolve(fromIncoming(res));
      });
      // The socket's idle timer runs until the body ends, so a transfer that stalls half-way fails too (its stream
      // errors with this message) instead of hanging `lock` or `sync` for good.
      const timeout = init.timeoutMs ?? IDLE_TIMEOUT_MS;
      req.setTimeout(timeout, () => {
        const error = new Error(`the connection stalled: nothing received for ${timeout / 1000} s`);
        incoming?.destroy(error);
        req.destroy(error);
      });
      req.on("error", (error: NodeJS.ErrnoException) => {
        if (choice.kind === "proxy" && incoming === undefined && CONNECT_FAILURES.has(error.code ?? "")) {
          const where = `${choice.url.hostname}:${choice.url.port || (choice.url.protocol === "https:" ? "443" : "80")}`;
          reject(
            new ProxyError(
              `Cannot reach the proxy ${where} (from ${choice.variable}): ${error.code}; check that the proxy runs, or fix ${choice.variable} (NO_PROXY lists hosts to reach directly)`,
              { cause: error },
            ),
          );
          return;
        }
        reject(error);
      });
      req.end();
    });
  };
}

/** Errors of the connection to the proxy itself (a tunnel's target is reached by the proxy, not by us). */
const CONNECT_FAILURES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ETIMEDOUT",
]);

/** The transport without a proxy. */
export const nodeTransport: Transport = createNodeTransport();

/** Adapts an injected `fetch` (tests' fake networks) to a transport. */
export function fetchTransport(fetchImpl: typeof fetch): Transport {
  return async (url, init) => {
    const response = await fetchImpl(url, { headers: init.headers, redirect: "manual" });
    let body: Readable | null | undefined;
    return {
      status: response.status,
      ok: response.ok,
      headers: response.headers,
      // Converted on first use only: converting locks the web stream, which text() and json() need unlocked.
      get body() {
        body ??=
          response.body === null
            ? null
            : Readable.fromWeb(response.body as import("node:stream/web").ReadableStream);
        return body;
      },
      text: () => response.text(),
      json: () => response.json(),
      discard: async () => {
        await response.body?.cancel();
      },
    };
  };
}

function fromIncoming(res: IncomingMessage): HttpResponse {
  const status = res.statusCode ?? 502;
  const header = (name: string): string | null => {
    const value = res.headers[name.toLowerCase()];
    return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
  };
  async function text(): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  }
  return {
    status,
    ok: status >= 200 && status < 300,
    headers: { get: header, has: (name) => header(name) !== null },
    body: res,
    text,
    json: async () => JSON.parse(await text()) as unknown,
    discard: async () => {
      // A short answer (a redirect, an error) is drained so the socket is reused; a long one is cut off.
      if (Number(header("content-length") ?? Number.POSITIVE_INFINITY) <= 65_536) res.resume();
      else res.destroy();
    },
  };
}
