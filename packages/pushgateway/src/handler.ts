import { gunzipSync } from "node:zlib";
import {
  BodyTooLargeError,
  ConsistencyError,
  httpStatus,
  LimitError,
  ParseError,
  PushgatewayError,
} from "./errors.js";
import { escapeHtml } from "./escape-html.js";
import { exposedFamilies } from "./exposition/exposed-families.js";
import { formatText } from "./exposition/format-text.js";
import { formatGoFloat } from "./exposition/go-float.js";
import type { MetricFamily } from "./exposition/metric-family.js";
import { negotiate } from "./exposition/negotiate.js";
import { isDelimitedProtobuf, parseDelimitedProtobuf } from "./exposition/parse-protobuf.js";
import { parseText } from "./exposition/parse-text.js";
import { mergeFamilies, parseRenderedFamily, renderFamily } from "./exposition/rendered-family.js";
import { writeDelimitedProtobuf } from "./exposition/write-protobuf.js";
import { formatProtobufText } from "./exposition/write-protobuf-text.js";
import { goJson, goStruct } from "./go-json.js";
import { type GroupingLabels, parseGroupingKey } from "./grouping-key.js";
import { decodeSnappyFrames } from "./snappy-frames.js";
import {
  FAILURE_TIME,
  FAILURE_TIME_HELP,
  type MetricStore,
  PUSH_TIME,
  PUSH_TIME_HELP,
} from "./store/metric-store.js";

/** A request as the handler sees it. */
export interface GatewayRequest {
  readonly method: string;
  /** Path without the route prefix, percent-decoded. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: Buffer;
}

/** A response to write. */
export interface GatewayResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** A string or buffer, or chunks streamed in order (the scrape). */
  readonly body: string | Buffer | Iterable<string>;
  /** Send the body gzip-compressed, with `Content-Encoding: gzip` (a scrape whose client accepts it). */
  readonly gzip?: true;
}

/** What the handlers need. */
export interface GatewayContext {
  readonly store: MetricStore;
  readonly now: () => Date;
  /** `--push.disable-consistency-check` turned off. */
  readonly check: boolean;
  readonly enableLifecycle: boolean;
  readonly enableAdminApi: boolean;
  readonly telemetryPath: string;
  /** The gateway's own families (process, build info, HTTP counters), exposed with the pushed ones. */
  readonly ownFamilies: () => Promise<MetricFamily[]>;
  readonly status: () => Record<string, unknown>;
  readonly quit: () => void;
  /** Beyond upstream (0 = unlimited): largest push body. */
  readonly maxBodyBytes: number;
  readonly onRequest: (handler: string, method: string, status: number) => void;
  /** A push was handled (any outcome): its duration and body size, for the push summaries. */
  readonly onPush: (method: string, seconds: number, bytes: number) => void;
}

const PUSH_ALLOW = "DELETE, OPTIONS, POST, PUT";

/**
 * Routes a request to the push, delete, scrape, health, lifecycle, API and UI handlers, answering with upstream's
 * statuses and texts (research §2): errors from `http.Error` end with a newline and carry nosniff.
 */
export async function handleRequest(req: GatewayRequest, ctx: GatewayContext): Promise<GatewayResponse> {
  const { path, method } = req;
  // Upstream's routes are /metrics/job/:job{/*labels} and /metrics/job@base64/:job{...}; httprouter redirects the
  // bare trailing slash (307, keeping the method) and answers 404 for everything else there.
  if (path === "/metrics/job/") return { status: 307, headers: { Location: "/metrics/job" }, body: "" };
  if (/^\/metrics\/job(@base64)?\/[^/]/.test(path)) {
    const rest = path.slice("/metrics/".length);
    if (method === "OPTIONS") return { status: 200, headers: { Allow: PUSH_ALLOW }, body: "" };
    if (method === "PUT" || method === "POST")
      return counted(ctx, "push", method, await push(req, { ctx, rest, replace: method === "PUT" }));
    if (method === "DELETE") return counted(ctx, "delete", method, remove(rest, ctx));
    return methodNotAllowed(PUSH_ALLOW);
  }
  if (path === ctx.telemetryPath) {
    if (method !== "GET") return methodNotAllowed("GET, OPTIONS");
    const scraped = await scrape(ctx, req.headers.accept);
    return scraped.status === 200 && gzipAccepted(req.headers["accept-encoding"])
      ? { ...scraped, gzip: true }
      : scraped;
  }
  // The API router answers OPTIONS on any path under it (upstream api/v1/api.go `options`), for CORS preflights.
  if (path.startsWith("/api/v1/") && method === "OPTIONS") {
    const { "Content-Type": _, ...cors } = json(null).headers;
    return counted(ctx, "api/v1/options", method, { status: 200, headers: cors, body: "" });
  }
  switch (path) {
    case "/-/healthy":
    case "/-/ready":
      if (method !== "GET") return methodNotAllowed("GET, OPTIONS");
      return counted(ctx, path.slice(3), method, {
        status: 200,
        headers: { "Content-Type": "text/plain; charset=utf-8" },
        body: "OK",
      });
    case "/-/quit":
      // Upstream writes these with WriteHeader + Write (main.go): no trailing newline, no nosniff.
      if (method !== "PUT" && method !== "POST") return plain(405, "Only POST or PUT requests allowed.");
      if (!ctx.enableLifecycle) return plain(403, "Lifecycle API is not enabled.");
      setImmediate(ctx.quit);
      return {
        status: 200,
        headers: { "Content-Type": "text/plain; charset=utf-8" },
        body: "Requesting termination... Goodbye!",
      };
    case "/api/v1/status":
      if (method !== "GET") return methodNotAllowed("GET, OPTIONS");
      return counted(ctx, "api/v1/status", method, json(goStruct({ status: "success", data: ctx.status() })));
    case "/api/v1/metrics":
      if (method !== "GET") return methodNotAllowed("GET, OPTIONS");
      return counted(
        ctx,
        "api/v1/metrics",
        method,
        json(goStruct({ status: "success", data: apiMetrics(ctx) })),
      );
    case "/api/v1/admin/wipe":
      if (!ctx.enableAdminApi) return textError(404, "404 page not found");
      if (method !== "PUT") return methodNotAllowed("OPTIONS, PUT");
      ctx.store.wipe();
      return counted(ctx, "wipe", method, { status: 202, headers: {}, body: "" });
    case "/":
    case "/status":
      if (method !== "GET") return methodNotAllowed("GET, OPTIONS");
      return counted(ctx, "status", method, {
        status: 200,
        headers: { "Content-Type": "text/html; charset=utf-8" },
        body: statusPage(ctx),
      });
    default:
      return textError(404, "404 page not found");
  }
}

async function push(
  req: GatewayRequest,
  options: { ctx: GatewayContext; rest: string; replace: boolean },
): Promise<GatewayResponse> {
  const { ctx } = options;
  let labels: GroupingLabels;
  let families: MetricFamily[];
  try {
    const tooLarge = () =>
      new BodyTooLargeError(
        `push body exceeds the limit of ${ctx.maxBodyBytes} bytes set by --push.max-body-bytes; split the push or raise the limit`,
      );
    if (ctx.maxBodyBytes > 0 && req.body.length > ctx.maxBodyBytes) throw tooLarge();
    let body = req.body;
    // Upstream decodes the body before routing (main.go decodeRequest): a bad gzip header fails before the path is
    // looked at, while snappy errors surface when the body is read, after the grouping key.
    const encoding = (req.headers["content-encoding"] ?? "").toLowerCase();
    if (encoding === "gzip") {
      try {
        // The limit also bounds the inflated size, so a small gzip bomb cannot get round it.
        body = gunzipSync(body, ctx.maxBodyBytes > 0 ? { maxOutputLength: ctx.maxBodyBytes } : {});
      } catch (cause) {
        if ((cause as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge();
        throw new ParseError(gzipErrorText(body), { cause });
      }
    }
    labels = parseGroupingKey(options.rest);
    if (encoding === "snappy") {
      try {
        body = decodeSnappyFrames(body, { maxBytes: ctx.maxBodyBytes });
      } catch (cause) {
        if (cause instanceof RangeError) throw tooLarge();
        throw cause;
      }
    }
    const contentType = req.headers["content-type"] ?? "";
    families = isDelimitedProtobuf(contentType)
      ? await parseDelimitedProtobuf(body)
      : parseText(body.toString("utf8"));
  } catch (error) {
    return errorResponse(error);
  }
  const rejected = ctx.store.push({
    labels,
    families,
    replace: options.replace,
    now: ctx.now(),
    check: ctx.check,
  });
  // Unchecked, upstream answers 202 before the write is looked at; a push with timestamps is then dropped silently
  // (only its failure time is set), as the store did above.
  if (rejected !== undefined && !(rejected.kind === "inconsistent" && !ctx.check)) {
    return errorResponse(
      rejected.kind === "limit"
        ? new LimitError(rejected.message)
        : new ConsistencyError(
            `pushed metrics are invalid or inconsistent with existing metrics: ${rejected.message}`,
          ),
    );
  }
  return { status: ctx.check ? 200 : 202, headers: {}, body: "" };
}

/**
 * Go's gzip reader's error for a body Node could not inflate: it reads a 10-byte header first (`EOF` when empty,
 * `unexpected EOF` when short), checks the magic (`gzip: invalid header`), and a stream cut short is again
 * `unexpected EOF` (compress/gzip gunzip.go readHeader).
 */
function gzipErrorText(body: Buffer): string {
  if (body.length === 0) return "EOF";
  if (body.length < 10) return "unexpected EOF";
  if (body[0] !== 0x1f || body[1] !== 0x8b || body[2] !== 8) return "gzip: invalid header";
  return "unexpected EOF";
}

function remove(rest: string, ctx: GatewayContext): GatewayResponse {
  try {
    ctx.store.delete(parseGroupingKey(rest));
  } catch (error) {
    return errorResponse(error);
  }
  return { status: 202, headers: {}, body: "" };
}

async function scrape(ctx: GatewayContext, accept: string | undefined): Promise<GatewayResponse> {
  // Only an unchecked store can be inconsistent; upstream's promhttp then answers 500 (research §4).
  const problem = ctx.check ? undefined : ctx.store.inconsistency();
  if (problem !== undefined) {
    return textError(500, `An error has occurred while serving metrics:\n\n${problem}`);
  }
  // The gateway's own families come first and keep their HELP and TYPE; pushed series of the same name join them.
  const own = (await ctx.ownFamilies()).map(renderFamily);
  const merged = mergeFamilies([...own, ...ctx.store.families()]);
  const { format, contentType } = negotiate(accept);
  const headers = { "Content-Type": contentType };
  switch (format) {
    case "text":
      return { status: 200, headers, body: formatText(merged) };
    case "protobuf-delimited":
      return { status: 200, headers, body: await writeDelimitedProtobuf(exposedFamilies(merged)) };
    default:
      return {
        status: 200,
        headers,
        body: formatProtobufText(exposedFamilies(merged), format === "protobuf-compact-text"),
      };
  }
}

/**
 * promhttp's test (client_golang 1.14, as in 1.5.1): an `Accept-Encoding` item that is `gzip` or starts with `gzip;`
 * (a q-value is not read).
 */
function gzipAccepted(header: string | undefined): boolean {
  return (header ?? "").split(",").some((part) => {
    const item = part.trim();
    return item === "gzip" || item.startsWith("gzip;");
  });
}

/** The `/api/v1/metrics` shape of upstream (api/v1/api.go): values as Go-formatted strings, per-family timestamps. */
function apiMetrics(ctx: GatewayContext): unknown[] {
  const iso = (ms: number) => new Date(ms).toISOString();
  return ctx.store.groups().map((g) => {
    const entry: Record<string, unknown> = { labels: g.labels };
    for (const [name, rendered] of g.families) {
      const f = parseRenderedFamily(rendered);
      entry[name] = goStruct({
        time_stamp: iso(g.pushedAt.get(name) ?? 0),
        type: f.type.toUpperCase(),
        ...(f.help === undefined ? {} : { help: f.help }),
        metrics: f.metrics.map((m) => ({
          labels: Object.fromEntries(m.labels),
          ...(m.value !== undefined ? { value: formatGoFloat(m.value) } : {}),
          ...(m.quantiles
            ? {
                quantiles: Object.fromEntries(
                  m.quantiles.map(([q, v]) => [formatGoFloat(q), formatGoFloat(v)]),
                ),
              }
            : {}),
          ...(m.buckets
            ? {
                buckets: Object.fromEntries(
                  m.buckets.map(([le, c]) => [formatGoFloat(le), formatGoFloat(c)]),
                ),
              }
            : {}),
          ...(m.count !== undefined ? { count: formatGoFloat(m.count) } : {}),
          ...(m.sum !== undefined ? { sum: formatGoFloat(m.sum) } : {}),
        })),
      });
    }
    const labels = { ...g.labels, instance: g.labels.instance ?? "" };
    const lastChange = Math.max(g.pushTime, g.failureTime) * 1000;
    entry[PUSH_TIME] = goStruct({
      time_stamp: iso(g.pushTime * 1000 || lastChange),
      type: "GAUGE",
      help: PUSH_TIME_HELP,
      metrics: [{ labels, value: formatGoFloat(g.pushTime) }],
    });
    entry[FAILURE_TIME] = goStruct({
      time_stamp: iso(lastChange),
      type: "GAUGE",
      help: FAILURE_TIME_HELP,
      metrics: [{ labels, value: formatGoFloat(g.failureTime) }],
    });
    entry.last_push_successful = g.failureTime <= g.pushTime;
    return entry;
  });
}

/**
 * The status page: one entry per group with its labels, its families, a failed-push badge and a Delete Group button.
 * As upstream's template (resources/template.html, static/functions.js) the button sends `DELETE` to a relative
 * `metrics/job@base64/<job>=/<name>@base64/<value>=` path (the extra `=` keeps empty values deletable, #377), so it
 * works under any route prefix; with the admin API a Delete All Groups button wipes the store.
 */
function statusPage(ctx: GatewayContext): string {
  const b64 = (v: string) => `${Buffer.from(v).toString("base64url")}=`;
  const groups = ctx.store.groups();
  const rows = groups.map((g) => {
    // `job` first, the others sorted, as the upstream template shows the badges.
    const names = [
      "job",
      ...Object.keys(g.labels)
        .filter((k) => k !== "job")
        .sort(),
    ];
    const labels = names
      .map((k) => `<span class="label">${escapeHtml(k)}="${escapeHtml(g.labels[k] ?? "")}"</span>`)
      .join(" ");
    const path = `metrics/job@base64/${b64(g.labels.job ?? "")}${names
      .slice(1)
      .map((k) => `/${k}@base64/${b64(g.labels[k] ?? "")}`)
      .join("")}`;
    const failed = g.failureTime > g.pushTime ? ' <strong class="failed">Last push failed!</strong>' : "";
    const families = [...g.families.values()]
      .map(
        (f) => `<li>${escapeHtml(f.name)} <em>${f.type.toUpperCase()}</em> (${f.lines.length} series)</li>`,
      )
      .join("");
    return `<li class="group">${labels}${failed} <button data-delete="${escapeHtml(path)}" onclick="fetch(this.dataset.delete,{method:'DELETE'}).then(()=>location.reload())">Delete Group</button><ul>${families}</ul></li>`;
  });
  const wipe = ctx.enableAdminApi
    ? `<button data-wipe="api/v1/admin/wipe" onclick="fetch(this.dataset.wipe,{method:'PUT'}).then(()=>location.reload())">Delete All ${groups.length} Groups</button>`
    : "";
  return `<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Prometheus Pushgateway</title></head><body><h1>Prometheus Pushgateway</h1>${wipe}<ul>${rows.join("")}</ul></body></html>\n`;
}

function counted(
  ctx: GatewayContext,
  handler: string,
  method: string,
  response: GatewayResponse,
): GatewayResponse {
  ctx.onRequest(handler, method, response.status);
  return response;
}

function methodNotAllowed(allow: string): GatewayResponse {
  return {
    status: 405,
    headers: {
      Allow: allow,
      "Content-Type": "text/plain; charset=utf-8",
      "X-Content-Type-Options": "nosniff",
    },
    body: "Method Not Allowed\n",
  };
}

/** A gateway error as its status and message (errors.ts `httpStatus`); anything else is a bug and propagates. */
function errorResponse(error: unknown): GatewayResponse {
  if (error instanceof PushgatewayError) return textError(httpStatus(error), error.message);
  throw error;
}

function textError(status: number, message: string): GatewayResponse {
  return {
    status,
    headers: { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" },
    body: `${message}\n`,
  };
}

function plain(status: number, body: string): GatewayResponse {
  return { status, headers: { "Content-Type": "text/plain; charset=utf-8" }, body };
}

/** The API's CORS and caching headers and Go's JSON encoding (upstream api/v1/api.go `respond`). */
function json(value: unknown): GatewayResponse {
  return {
    status: 200,
    headers: {
      "Access-Control-Allow-Headers": "Accept, Authorization, Content-Type, Origin",
      "Access-Control-Allow-Methods": "GET, POST, DELETE, OPTIONS",
      "Access-Control-Allow-Origin": "*",
      "Access-Control-Expose-Headers": "Date",
      "Cache-Control": "no-cache, no-store, must-revalidate",
      "Content-Type": "application/json",
    },
    body: goJson(value),
  };
}
