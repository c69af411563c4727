import { cleanPath } from "@local/go-compat/clean-path";
import { ParameterNodeError } from "./errors.js";
import { goParseQuery } from "./go/query.js";
import { knownStatus, type RunContext, runTriggered } from "./hook-run.js";
import type { Hook } from "./hooks/hook.js";
import { jobsResponse } from "./jobs/jobs-api.js";
import { UNKNOWN_HOOK } from "./metrics.js";
import type { TrustedProxies } from "./request/client-address.js";
import { goReadsMultipartBody } from "./request/multipart-form.js";
import { decodeGoJsonObject, parseBody } from "./request/payload.js";
import {
  argumentError,
  canonicalHeaderKey,
  getArgument,
  getParameter,
  type RequestData,
} from "./request/request-values.js";
import { evaluateRule } from "./request/rules.js";
import type { HookResponse } from "./response/hook-response.js";

/** A request as the handler sees it, read by the server adapter. */
export interface HookRequest {
  readonly method: string;
  /** The URL path, not yet decoded. */
  readonly path: string;
  /** The query string without `?`. */
  readonly query: string;
  /** Header name → values, names in any case. */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  readonly body: Buffer;
  /**
   * Set when the body has not been read yet (`Expect: 100-continue`): reading it asks the client for it, as Go's
   * first read of the body does. Upstream reads it only once a hook has matched with an allowed method.
   */
  readonly readBody?: (() => Promise<Buffer>) | undefined;
  /** Once the body is read: Go's error when its framing broke (chunked errors, an early EOF); upstream logs it. */
  readonly bodyError?: (() => string | undefined) | undefined;
  readonly remoteAddr: string;
  readonly requestId: string;
  /** Watches for the client leaving (its connection closed or its side shut); returns a function that stops it. */
  readonly onClientGone?: ((listener: () => void) => () => void) | undefined;
}

/** What the handler needs: the hooks served now, the server-wide settings and the command seam. */
export interface HandlerContext extends RunContext {
  readonly hooks: () => ReadonlyMap<string, Hook>;
  /** Settles once start-up is over: the listener opens early (as upstream) but requests wait for the hooks. */
  readonly ready: Promise<void>;
  readonly urlPrefix: string;
  /** `-header name=value` response headers. */
  readonly headers: readonly (readonly [string, string])[];
  /** `-http-methods`, already split and upper-cased. */
  readonly defaultMethods: readonly string[];
  /** Whether `log` writes anywhere (`-verbose`, `-debug` or `-logfile`): off, log lines are not even built. */
  readonly verbose: boolean;
  /** `-debug`: dump requests and responses. */
  readonly debug: boolean;
  /** `-explain-rules` (beyond upstream): say why rules failed, in a line upstream does not have. */
  readonly explainRules: boolean;
  /** Writes to the log's output without the log prefix (the `-debug` dumps). */
  readonly writeRaw: (text: string) => void;
  readonly now: () => Date;
  /** `-max-multipart-mem`: multipart file bytes held in memory before the rest go to temporary files. */
  readonly maxMultipartMem?: number;
  /** `-trusted-proxies` (beyond upstream): whose forwarding headers say the client's address. */
  readonly trustedProxies?: TrustedProxies;
}

const TEXT = "text/plain; charset=utf-8";
const NOT_SATISFIED = "Hook rules were not satisfied.";
const EVAL_ERROR = "Error occurred while evaluating hook rules.";

/**
 * Handles one request exactly as upstream's router and `hookHandler` (webhook.go): `/` answers `OK`; an unknown id
 * is 404 `Hook not found.`; a method outside the hook's list is an empty 405; unsatisfied rules are
 * `Hook rules were not satisfied.` (status from `trigger-rule-mismatch-http-response-code`); evaluation errors are
 * 500; the command's failure is 500 when its output is awaited, and only logged when it is not.
 */
export async function handleRequest(req: HookRequest, ctx: HandlerContext): Promise<HookResponse> {
  const cleanups: (() => Promise<void>)[] = [];
  try {
    return await answer(req, ctx, cleanups);
  } finally {
    // net/http's finishRequest removes a multipart form's temporary files once the handler has returned.
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  }
}

async function answer(
  req: HookRequest,
  ctx: HandlerContext,
  cleanups: (() => Promise<void>)[],
): Promise<HookResponse> {
  const rid = req.requestId;
  // Go's server cannot parse a request URI with a bad escape and answers 400 before any handler runs.
  const escaped = req.path.includes("%");
  if (escaped && /%(?![0-9a-fA-F]{2})/.test(req.path)) {
    return {
      status: 400,
      headers: [
        ["Content-Type", TEXT],
        ["Connection", "close"],
      ],
      body: "400 Bad Request",
      unrouted: true,
    };
  }
  let path = req.path;
  try {
    if (escaped) path = decodeURIComponent(req.path);
  } catch {
    // Not UTF-8 once decoded: the path stays as sent.
  }
  // gorilla/mux redirects an unclean path (`//hooks/x`, `/hooks/./x`) to its cleaned form, outside any middleware.
  const clean = cleanPath(path);
  if (clean !== path) {
    const location = encodeURI(clean) + (req.query === "" ? "" : `?${req.query}`);
    return { status: 301, headers: [["Location", location]], body: "", unrouted: true };
  }
  // 2.8.0 (the Debian peer) adds no `-header` headers to `/`; 2.8.1 started to.
  if (path === "/") return { status: 200, headers: [["Content-Type", TEXT]], body: "OK" };
  // `-jobs-dir` (beyond upstream): the jobs, whatever `-urlprefix` is (a prefix of `jobs` is refused at start).
  if (ctx.jobs !== undefined && path.startsWith("/jobs/"))
    return jobsResponse(req.method, path.slice("/jobs/".length), ctx.jobs.store);
  const prefix = ctx.urlPrefix === "" ? "/" : `/${ctx.urlPrefix}/`;
  if (!path.startsWith(prefix)) {
    return {
      status: 404,
      headers: [
        ["Content-Type", TEXT],
        ["X-Content-Type-Options", "nosniff"],
      ],
      body: "404 page not found\n",
      // Go's http.Error sets the type before WriteHeader: it is among the sorted headers, not sniffed after them.
      explicitContentType: true,
      unrouted: true,
    };
  }
  if (ctx.verbose) ctx.log(`[${rid}] incoming HTTP ${req.method} request from ${req.remoteAddr}`);
  const id = path.slice(prefix.length);
  const hook = ctx.hooks().get(id);
  if (hook === undefined) {
    ctx.metrics?.request(UNKNOWN_HOOK, "not_found");
    return { status: 404, headers: [["Content-Type", TEXT]], body: "Hook not found." };
  }

  const allowed = hook.httpMethods.length > 0 ? hook.httpMethods : ctx.defaultMethods;
  if (allowed.length > 0 && !allowed.includes(req.method)) {
    ctx.log(`[${rid}] HTTP ${req.method} method not allowed for hook "${id}"`);
    ctx.metrics?.request(id, "method_not_allowed");
    return { status: 405, headers: [], body: "" };
  }
  if (ctx.verbose) ctx.log(`[${rid}] ${id} got matched`);
  const headers: (readonly [string, string])[] = [];
  for (const [name, value] of ctx.headers) setHeader(headers, name, value);

  // No prototype: a header named `__proto__` is stored like any other (as a key it would set the prototype).
  const headerMap: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(req.headers)) {
    // Go moves Host and Transfer-Encoding out of the header map into their own request fields.
    if (value === undefined || name.toLowerCase() === "host" || name.toLowerCase() === "transfer-encoding")
      continue;
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) headerMap[canonicalHeaderKey(name)] = first as string;
  }
  // URL.Query() ignores the pairs it cannot parse and keeps the others.
  const query: Record<string, unknown> = goParseQuery(req.query).values;
  const contentType = hook.incomingPayloadContentType || headerMap["Content-Type"] || "";
  // Upstream's multipart branch can fail before it reads a byte (the request itself is of another type).
  const unread =
    contentType.startsWith("multipart/form-data;") &&
    !goReadsMultipartBody(req.method, headerMap["Content-Type"] ?? "");
  const body = unread ? Buffer.alloc(0) : req.readBody === undefined ? req.body : await req.readBody();
  // webhook.go reads a body that is not multipart with ioutil.ReadAll and logs its error, keeping what came.
  const bodyError = req.bodyError?.();
  if (bodyError !== undefined && !contentType.startsWith("multipart/form-data;"))
    ctx.log(`[${rid}] error reading the request body: ${bodyError}`);
  const parsed = await parseBody(contentType, body, {
    jsonParts: hook.parseParametersAsJson.filter((a) => a.source === "payload").map((a) => a.name),
    requestContentType: headerMap["Content-Type"] ?? "",
    query: req.query,
    maxMemory: ctx.maxMultipartMem ?? 1 << 20,
    tempDir: ctx.command.tmpdir,
  });
  if (parsed.cleanup !== undefined) cleanups.push(parsed.cleanup);
  if (parsed.multipartFailed) {
    // Upstream logs these with a trailing newline, which log.Println turns into an empty line.
    ctx.log(`[${rid}] ${parsed.logError}\n`);
    ctx.metrics?.request(id, "bad_request");
    return {
      status: 500,
      headers: [...headers, ["Content-Type", TEXT]],
      body: parsed.fileFailed
        ? "Error occurred while parsing multipart form file."
        : "Error occurred while parsing multipart form.",
    };
  }
  for (const note of parsed.notes ?? []) ctx.log(`[${rid}] ${note}`);
  if (parsed.logError) ctx.log(`[${rid}] ${parsed.logError}`);
  const data: RequestData = {
    method: req.method,
    remoteAddr: req.remoteAddr,
    headers: headerMap,
    query,
    payload: parsed.payload,
    rawBody: parsed.rawBodyUnavailable ? Buffer.alloc(0) : body,
  };
  parseParametersAsJson(hook, data, ctx.log, rid);

  if (hook.triggerRule !== undefined) {
    const result = evaluateRule(hook.triggerRule, data, {
      softFailures: hook.triggerSignatureSoftFailures,
      now: ctx.now,
      explain: ctx.explainRules,
    });
    if (result.error !== undefined && !(result.error instanceof ParameterNodeError)) {
      ctx.log(`[${rid}] error evaluating hook: ${result.error.message}`);
      ctx.metrics?.request(id, "rules_error");
      return { status: 500, headers: [...headers, ["Content-Type", TEXT]], body: EVAL_ERROR };
    }
    if (result.error !== undefined) ctx.log(`[${rid}] ${result.error.message}`);
    if (!result.ok) {
      // Beyond upstream, opt-in so that -debug logs stay upstream's: say which rule failed and why.
      if (ctx.explainRules && result.reason !== undefined)
        ctx.log(`[${rid}] rule not satisfied: ${result.reason}`);
      if (ctx.verbose)
        ctx.log(
          `[${rid}] ${id} got matched, but didn't get triggered because the trigger rules were not satisfied`,
        );
      const status = knownStatus(hook.triggerRuleMismatchHttpResponseCode) ?? 200;
      ctx.metrics?.request(id, "rules_not_satisfied");
      return { status, headers: [...headers, ["Content-Type", TEXT]], body: NOT_SATISFIED };
    }
  }
  if (ctx.verbose) ctx.log(`[${rid}] ${id} hook triggered successfully`);
  for (const h of hook.responseHeaders) setHeader(headers, h.name, h.value);
  const { onClientGone } = req;
  return runTriggered(hook, { data, rid, headers, accept: headerMap.Accept ?? "", onClientGone }, ctx);
}

/** Upstream's `ParseJSONParameters`: replaces a payload, header or query value by the JSON object it holds. */
function parseParametersAsJson(hook: Hook, data: RequestData, log: (l: string) => void, rid: string): void {
  for (const arg of hook.parseParametersAsJson) {
    let text: string;
    try {
      text = getArgument(arg, data);
    } catch {
      log(`[${rid}] error parsing JSON parameters: ${argumentError(arg)}`);
      continue;
    }
    try {
      const decoded = decodeGoJsonObject(text);
      if ("error" in decoded) throw new Error(decoded.error);
      const value = decoded.value;
      const target =
        arg.source === "payload"
          ? data.payload
          : arg.source === "header"
            ? data.headers
            : arg.source === "query" || arg.source === "url"
              ? data.query
              : undefined;
      if (target === undefined) throw new Error(`invalid source for argument ${arg.source}`);
      const name = arg.source === "header" ? canonicalHeaderKey(arg.name) : arg.name;
      const dot = name.lastIndexOf(".");
      const parent = dot < 0 ? target : (getParameter(name.slice(0, dot), target) as Record<string, unknown>);
      parent[dot < 0 ? name : name.slice(dot + 1)] = value;
    } catch (error) {
      log(`[${rid}] error parsing JSON parameters: ${(error as Error).message}`);
    }
  }
}

/** Go's `Header.Set`, as upstream sets `-header` and `response-headers`: the name canonicalised, one value per name. */
function setHeader(headers: (readonly [string, string])[], name: string, value: string): void {
  const key = canonicalHeaderKey(name);
  const at = headers.findIndex(([k]) => k === key);
  if (at >= 0) headers.splice(at, 1);
  headers.push([key, value]);
}
