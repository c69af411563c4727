import { HttpError, RateLimitError, UsageError } from "../errors.js";
import { isLoopbackHost } from "../loopback-host.js";
import { apiBaseFromEnv, codeHostToken, type ProxyRule, proxyRuleFromEnv } from "./network-env.js";
import { createRequestLimiter, type RequestLimiter } from "./request-limiter.js";
import type { ResponseCache } from "./response-cache.js";
import { createNodeTransport, fetchTransport, type HttpResponse, type Transport } from "./transport.js";

/** Options of one request. */
export interface RequestOptions {
  /** The `Accept` header. @default "application/vnd.github+json" */
  readonly accept?: string;
  /** Statuses returned to the caller instead of thrown (for example 404 "no release for this tag"). */
  readonly allowStatus?: readonly number[];
  /** An `Authorization` value for the request's own origin (a mirror's token); dropped along a redirect elsewhere. */
  readonly authorization?: string;
  /** Nothing waits for this answer yet: it yields its place in the queue to requests that something waits for. */
  readonly background?: boolean;
}

/** A whole answer, read into memory (API answers: JSON, a commit hash). */
export interface TextAnswer {
  readonly status: number;
  readonly ok: boolean;
  readonly text: string;
  /** The `Link` header (pagination), or null. */
  readonly link: string | null;
}

/** What the client needs from the outside. */
export interface HttpClientOptions {
  /**
   * A fake network for tests. The global `fetch` (what `cli.ts` passes) is replaced by the equivalent
   * `node:http(s)` transport, which costs less than half the CPU per request (see `transport.ts`).
   */
  readonly fetch?: typeof fetch;
  /** Base URL of the code-hosting API (`CODEHOST_API_URL`); the token is sent to this origin only. */
  readonly apiBase: string;
  /** The token (`CODEHOST_TOKEN`, `GH_TOKEN` or `GITHUB_TOKEN`), if set. Never logged, never sent to another origin. */
  readonly token?: string | undefined;
  /** The variable the token came from, for messages. @default "CODEHOST_TOKEN" */
  readonly tokenVariable?: string;
  /** Which requests go through a proxy (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`). @default direct */
  readonly proxyRule?: ProxyRule;
  /** Waits between retries; injected so tests do not sleep. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Longest rate-limit wait worth sitting out before failing. @default 10_000 */
  readonly maxRateLimitWaitMs?: number;
  /** Retries of a 5xx answer or a reset connection. @default 3 */
  readonly retries?: number;
  readonly now?: () => Date;
  /**
   * API requests in flight at once (until their headers arrive). @default 90: under the 100 concurrent requests GitHub
   * documents as its secondary rate limit ("About secondary rate limits"), with room for another client of the token.
   */
  readonly maxConcurrent?: number;
  /**
   * Requests in flight at once to each other origin (release downloads, storage): these are not API requests and
   * count against no API limit, so the bound is larger, only there to keep sockets in check: 256 lets a trust-on-
   * first-use lock of 50 tools x 4 platforms fetch every artifact in one wave (128 took two, measured with
   * lock-bench.mjs). `sync` bounds its downloads separately, at 4. @default 256
   */
  readonly maxConcurrentDownloads?: number;
  /**
   * A connection that sends nothing for this long, before the headers or in the middle of a body, is dropped; the
   * request (or download) is retried like a reset. `TOOLMGR_HTTP_TIMEOUT` (seconds) sets it. @default 60_000
   */
  readonly timeoutMs?: number;
  /** Remembered API answers: `getText` then asks with `If-None-Match` and a 304 reuses the remembered body. */
  readonly cache?: ResponseCache;
}

/** An HTTP client for the code host and downloads, with the network rules of README "How lock and sync decide". */
export interface HttpClient {
  /** GET `url`; redirects followed by hand so the token never crosses to another origin. */
  get(url: string, options?: RequestOptions): Promise<HttpResponse>;
  /**
   * GET `url` and read the whole answer, retrying a body that stalls or breaks off like a reset. On the API origin a
   * remembered answer is revalidated with `If-None-Match` (a 304 costs no rate limit) and a 200 with an `ETag` is
   * remembered.
   */
  getText(url: string, options?: RequestOptions): Promise<TextAnswer>;
  /** Retries of a download whose body fails (the same count as for a 5xx), and the wait before each. */
  readonly retries: number;
  backoff(attempt: number): Promise<void>;
  /** The API base URL without a trailing slash. */
  readonly apiBase: string;
  /** Whether the code host answered with a rate limit at least once (even one waited out). */
  readonly rateLimited: boolean;
}

const MAX_REDIRECTS = 5;

/**
 * The stall timeout `TOOLMGR_HTTP_TIMEOUT` asks for (seconds, fractions allowed), in milliseconds, or undefined for
 * the default. Like mise's `MISE_HTTP_TIMEOUT`: a slow mirror may need more, a test less.
 *
 * @throws {UsageError} when it is not a positive number
 */
export function httpTimeoutFromEnv(env: Readonly<Record<string, string | undefined>>): number | undefined {
  const text = env.TOOLMGR_HTTP_TIMEOUT;
  if (text === undefined || text === "") return undefined;
  const seconds = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text.trim()) || !(seconds > 0)) {
    throw new UsageError(
      `Cannot use TOOLMGR_HTTP_TIMEOUT=${JSON.stringify(text)}: give the stall timeout in seconds, for example 60`,
    );
  }
  return Math.round(seconds * 1000);
}

/** What the environment says about the network: API base, token, proxies, stall timeout. */
export function networkOptionsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): Pick<HttpClientOptions, "apiBase" | "token" | "tokenVariable" | "proxyRule" | "timeoutMs"> {
  const token = codeHostToken(env);
  const timeoutMs = httpTimeoutFromEnv(env);
  return {
    apiBase: apiBaseFromEnv(env),
    ...(token === undefined ? {} : { token: token.value, tokenVariable: token.variable }),
    proxyRule: proxyRuleFromEnv(env),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  };
}

/**
 * Creates the client. Rules: https only (plain http only on loopback, for tests and local mirrors); a redirect from
 * https to http is refused; `Authorization` goes to the API origin only, never along a redirect to another origin
 * (signed storage rejects a second credential, and it would leak: go-github's DownloadReleaseAsset); 5xx and resets are
 * retried with backoff; a rate limit is waited out when the wait is short, else reported with the time it resets.
 */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const apiBase = options.apiBase.replace(/\/+$/, "");
  const apiOrigin = new URL(apiBase).origin;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const retries = options.retries ?? 3;
  const maxWait = options.maxRateLimitWaitMs ?? 10_000;
  const now = options.now ?? (() => new Date());
  const apiSlots = createRequestLimiter(options.maxConcurrent ?? 90);
  const downloadLimit = options.maxConcurrentDownloads ?? 256;
  const otherSlots = new Map<string, RequestLimiter>();
  const slotsFor = (url: URL): RequestLimiter => {
    if (url.origin === apiOrigin) return apiSlots;
    let slots = otherSlots.get(url.origin);
    if (slots === undefined) {
      slots = createRequestLimiter(downloadLimit);
      otherSlots.set(url.origin, slots);
    }
    return slots;
  };
  const timeoutMs = options.timeoutMs ?? 60_000;
  const fake = options.fetch;
  const transport: Transport =
    fake === undefined || fake === globalThis.fetch
      ? createNodeTransport(options.proxyRule)
      : fetchTransport(fake);
  const tokenVariable = options.tokenVariable ?? "CODEHOST_TOKEN";
  let rateLimited = false;

  async function once(
    url: URL,
    request: {
      accept: string;
      etag?: string | undefined;
      background?: boolean | undefined;
      authorization?: string | undefined;
    },
  ): Promise<HttpResponse> {
    let current = url;
    let from: URL | undefined;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      checkScheme(current, from);
      const headers: Record<string, string> = { accept: request.accept, "user-agent": "toolmgr" };
      if (options.token && current.origin === apiOrigin) headers.authorization = `Bearer ${options.token}`;
      else if (request.authorization !== undefined && current.origin === url.origin)
        headers.authorization = request.authorization;
      if (request.etag !== undefined && hop === 0) headers["if-none-match"] = request.etag;
      const target = current;
      const response = await slotsFor(target).run(() => transport(target, { headers, timeoutMs }), {
        background: request.background === true && hop === 0,
      });
      if (response.status >= 300 && response.status < 400 && response.headers.has("location")) {
        await response.discard();
        const location = response.headers.get("location") ?? "";
        let next: URL;
        try {
          next = new URL(location, current);
        } catch (cause) {
          // Not a network failure to retry (and "Invalid URL" named nothing): the answer itself is wrong.
          throw new HttpError(
            `Cannot follow the redirect from ${redact(current)}: its location ${JSON.stringify(location)} is not a URL`,
            { cause },
          );
        }
        if (current.protocol === "https:" && next.protocol === "http:") {
          throw new HttpError(
            `Cannot follow the redirect from ${redact(current)} to ${redact(next)}: it leaves https`,
          );
        }
        from = current;
        current = next;
        continue;
      }
      return response;
    }
    throw new HttpError(`Cannot download ${redact(url)}: more than ${MAX_REDIRECTS} redirects`);
  }

  async function get(
    target: string,
    request: RequestOptions & { etag?: string | undefined } = {},
  ): Promise<HttpResponse> {
    const url = new URL(target);
    const accept = request.accept ?? "application/vnd.github+json";
    for (let attempt = 0; ; attempt++) {
      let response: HttpResponse;
      try {
        response = await once(url, {
          accept,
          etag: request.etag,
          background: request.background,
          authorization: request.authorization,
        });
      } catch (error) {
        if (error instanceof HttpError) throw error;
        if (attempt >= retries) {
          throw new HttpError(
            `Cannot reach ${redact(url)}: ${(error as Error).message}; check the network and try again`,
            { cause: error },
          );
        }
        await sleep(backoff(attempt));
        continue;
      }
      if (response.ok || request.allowStatus?.includes(response.status)) return response;
      if (response.status === 304 && request.etag !== undefined) return response;
      if (response.status === 403 || response.status === 429) {
        const wait = rateLimitWait(response, now());
        if (wait !== undefined) {
          rateLimited = true;
          await response.discard();
          if (wait <= maxWait && attempt < retries) {
            await sleep(wait);
            continue;
          }
          const reset = response.headers.get("x-ratelimit-reset");
          const when = reset ? ` It resets at ${new Date(Number(reset) * 1000).toISOString()}.` : "";
          throw new RateLimitError(
            options.token
              ? `Cannot query ${redact(url)}: the code host's rate limit is exhausted.${when} It is the limit of the token in ${tokenVariable}: wait, or use another token`
              : `Cannot query ${redact(url)}: the code host's rate limit is exhausted.${when} Set CODEHOST_TOKEN (or GH_TOKEN, GITHUB_TOKEN) for a higher limit, or wait`,
          );
        }
      }
      if (response.status === 401 && options.token && url.origin === apiOrigin) {
        // A stale token turns even public lookups into 401s (jdx/mise#2910): name the variable.
        await response.discard();
        throw new HttpError(
          `Cannot query ${redact(url)}: the code host refused ${tokenVariable} (HTTP 401); renew the token, or unset it to reach public repositories without one`,
          { status: 401 },
        );
      }
      if (response.status >= 500 && attempt < retries) {
        await response.discard();
        await sleep(backoff(attempt));
        continue;
      }
      const detail = await response.text().catch(() => "");
      throw new HttpError(`Cannot get ${redact(url)}: HTTP ${response.status}${summary(detail)}`, {
        status: response.status,
      });
    }
  }

  async function getText(target: string, request: RequestOptions = {}): Promise<TextAnswer> {
    const accept = request.accept ?? "application/vnd.github+json";
    const cache =
      options.cache !== undefined && new URL(target).origin === apiOrigin ? options.cache : undefined;
    const key = { url: target, accept };
    const remembered = await cache?.get(key);
    for (let attempt = 0; ; attempt++) {
      const response = await get(target, { ...request, etag: remembered?.etag });
      if (response.status === 304 && remembered !== undefined) {
        await response.discard();
        return { status: 200, ok: true, text: remembered.body, link: remembered.link ?? null };
      }
      let text: string;
      try {
        text = await response.text();
      } catch (error) {
        // The headers came but the body stalled or broke off: the same transient failure as a reset, retried.
        if (attempt >= retries) {
          throw new HttpError(
            `Cannot read the answer of ${redact(new URL(target))}: ${(error as Error).message} (tried ${attempt + 1} times); check the network and try again`,
            { cause: error },
          );
        }
        await sleep(backoff(attempt));
        continue;
      }
      const etag = response.headers.get("etag");
      const link = response.headers.get("link");
      if (cache !== undefined && response.status === 200 && etag !== null)
        cache.set(key, { etag, body: text, ...(link === null ? {} : { link }) });
      return { status: response.status, ok: response.ok, text, link };
    }
  }

  return {
    get,
    getText,
    apiBase,
    retries,
    backoff: (attempt) => sleep(backoff(attempt)),
    get rateLimited() {
      return rateLimited;
    },
  };
}

// Plain http only on loopback. `from` is the URL that redirected here: a redirect to plain http is refused, not
// followed, and the message says it was a redirect (nao1215/block e2e/atago/sync.atago.yaml).
function checkScheme(url: URL, from?: URL): void {
  if (url.protocol === "https:") return;
  if (url.protocol === "http:" && isLoopbackHost(url.hostname)) return;
  if (from !== undefined)
    throw new HttpError(
      `Cannot follow the redirect from ${redact(from)} to ${redact(url)}: only https URLs are allowed`,
    );
  throw new HttpError(`Cannot download ${redact(url)}: only https URLs are allowed`);
}

/** How long a 403/429 asks us to wait, or undefined when it is not a rate limit. */
function rateLimitWait(response: HttpResponse, now: Date): number | undefined {
  const retryAfter = response.headers.get("retry-after");
  if (retryAfter !== null && /^\d+$/.test(retryAfter)) return Number(retryAfter) * 1000;
  if (response.headers.get("x-ratelimit-remaining") === "0") {
    const reset = Number(response.headers.get("x-ratelimit-reset"));
    return Number.isFinite(reset) ? Math.max(0, reset * 1000 - now.getTime()) : Number.POSITIVE_INFINITY;
  }
  return undefined;
}

function backoff(attempt: number): number {
  return 250 * 2 ** attempt;
}

/** A URL for messages: no query string (signed storage URLs carry credentials there). */
export function redact(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

function summary(body: string): string {
  try {
    const message = (JSON.parse(body) as { message?: unknown }).message;
    return typeof message === "string" ? `: ${message}` : "";
  } catch {
    return body.length > 0 && body.length < 200 ? `: ${body.trim()}` : "";
  }
}
