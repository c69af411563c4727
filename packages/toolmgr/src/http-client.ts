import { HttpError, RateLimitError } from "./errors.js";
import { fetchTransport, type HttpResponse, nodeTransport, type Transport } from "./http-transport.js";
import { isLoopbackHost } from "./lockfile.js";

/** Options of one request. */
export interface RequestOptions {
  /** The `Accept` header. @default "application/vnd.github+json" */
  readonly accept?: string;
  /** Statuses returned to the caller instead of thrown (for example 404 "no release for this tag"). */
  readonly allowStatus?: readonly number[];
}

/** What the client needs from the outside. */
export interface HttpClientOptions {
  /**
   * A fake network for tests. The global `fetch` (what `cli.ts` passes) is replaced by the equivalent
   * `node:http(s)` transport, which costs less than half the CPU per request (see `http-transport.ts`).
   */
  readonly fetch?: typeof fetch;
  /** Base URL of the code-hosting API (`CODEHOST_API_URL`); the token is sent to this origin only. */
  readonly apiBase: string;
  /** `CODEHOST_TOKEN`, if set. Never logged, never sent to another origin. */
  readonly token?: string | undefined;
  /** Waits between retries; injected so tests do not sleep. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Longest rate-limit wait worth sitting out before failing. @default 10_000 */
  readonly maxRateLimitWaitMs?: number;
  /** Retries of a 5xx answer or a reset connection. @default 3 */
  readonly retries?: number;
  readonly now?: () => Date;
  /** Requests in flight at once (until their headers arrive). @default 64, well under the host's secondary limit of 100 */
  readonly maxConcurrent?: number;
}

/** An HTTP client for the code host and downloads, with the safety rules of issue 10 built in. */
export interface HttpClient {
  /** GET `url`; redirects followed by hand so the token never crosses to another origin. */
  get(url: string, options?: RequestOptions): Promise<HttpResponse>;
  /** The API base URL without a trailing slash. */
  readonly apiBase: string;
}

const MAX_REDIRECTS = 5;

/**
 * Creates the client. Rules: https only (plain http only on loopback, for tests and local mirrors); a redirect from
 * https to http is refused; `Authorization` goes to the API origin only, never along a redirect to another origin
 * (research §1.4: storage rejects it, and it leaks); 5xx and resets are retried with backoff; a rate limit is waited
 * out when the wait is short, else reported with the time it resets.
 */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const apiBase = options.apiBase.replace(/\/+$/, "");
  const apiOrigin = new URL(apiBase).origin;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const retries = options.retries ?? 3;
  const maxWait = options.maxRateLimitWaitMs ?? 10_000;
  const now = options.now ?? (() => new Date());
  const slots = createLimiter(options.maxConcurrent ?? 64);
  const fake = options.fetch;
  const transport: Transport =
    fake === undefined || fake === globalThis.fetch ? nodeTransport : fetchTransport(fake);

  async function once(url: URL, accept: string): Promise<HttpResponse> {
    let current = url;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      checkScheme(current);
      const headers: Record<string, string> = { accept, "user-agent": "toolmgr" };
      if (options.token && current.origin === apiOrigin) headers.authorization = `Bearer ${options.token}`;
      const target = current;
      const response = await slots.run(() => transport(target, { headers }));
      if (response.status >= 300 && response.status < 400 && response.headers.has("location")) {
        await response.discard();
        const next = new URL(response.headers.get("location") ?? "", current);
        if (current.protocol === "https:" && next.protocol === "http:") {
          throw new HttpError(
            `Cannot follow the redirect from ${redact(current)} to ${redact(next)}: it leaves https`,
          );
        }
        current = next;
        continue;
      }
      return response;
    }
    throw new HttpError(`Cannot download ${redact(url)}: more than ${MAX_REDIRECTS} redirects`);
  }

  async function get(target: string, request: RequestOptions = {}): Promise<HttpResponse> {
    const url = new URL(target);
    const accept = request.accept ?? "application/vnd.github+json";
    for (let attempt = 0; ; attempt++) {
      let response: HttpResponse;
      try {
        response = await once(url, accept);
      } catch (error) {
        if (error instanceof HttpError || attempt >= retries) {
          if (error instanceof HttpError) throw error;
          throw new HttpError(
            `Cannot reach ${redact(url)}: ${(error as Error).message}; check the network and try again`,
            {
              cause: error,
            },
          );
        }
        await sleep(backoff(attempt));
        continue;
      }
      if (response.ok || request.allowStatus?.includes(response.status)) return response;
      if (response.status === 403 || response.status === 429) {
        const wait = rateLimitWait(response, now());
        if (wait !== undefined) {
          await response.discard();
          if (wait <= maxWait && attempt < retries) {
            await sleep(wait);
            continue;
          }
          const reset = response.headers.get("x-ratelimit-reset");
          const when = reset ? ` It resets at ${new Date(Number(reset) * 1000).toISOString()}.` : "";
          throw new RateLimitError(
            `Cannot query ${redact(url)}: the code host's rate limit is exhausted.${when} Set CODEHOST_TOKEN for a higher limit, or wait`,
          );
        }
      }
      if (response.status === 401 && options.token && url.origin === apiOrigin) {
        // A stale token turns even public lookups into 401s (research §0.10, jdx/mise#2910): name the variable.
        await response.discard();
        throw new HttpError(
          `Cannot query ${redact(url)}: the code host refused CODEHOST_TOKEN (HTTP 401); renew the token, or unset it to reach public repositories without one`,
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

  return { get, apiBase };
}

/** Runs at most `limit` calls at once; the rest wait in order. */
function createLimiter(limit: number): { run<T>(fn: () => Promise<T>): Promise<T> } {
  let active = 0;
  const waiting: (() => void)[] = [];
  return {
    async run(fn) {
      if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
      else active++;
      try {
        return await fn();
      } finally {
        const next = waiting.shift();
        if (next) next();
        else active--;
      }
    },
  };
}

function checkScheme(url: URL): void {
  if (url.protocol === "https:") return;
  if (url.protocol === "http:" && isLoopbackHost(url.hostname)) return;
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
function redact(url: URL): string {
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
