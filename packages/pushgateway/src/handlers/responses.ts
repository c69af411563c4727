import { goMarshal } from "@local/go-compat/json";
import type { GaugeMode } from "../aggregate/add-family.js";
import { httpStatus, PushgatewayError } from "../errors.js";
import type { MetricFamily } from "../exposition/metric-family.js";
import type { MetricStore } from "../store/metric-store.js";
import type { WriteQueue } from "./write-queue.js";

/** A request as the handlers see it. */
export interface GatewayRequest {
  readonly method: string;
  /** Path without the route prefix, percent-decoded. */
  readonly path: string;
  /** The query string without `?` (the status page's filter, the static assets' `v`); absent when none. */
  readonly query?: string | undefined;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: Buffer;
  /** `--web.route-prefix` is set (upstream's GET /-/quit is then outside it, and the prefixed one has no GET). */
  readonly prefixed?: boolean;
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
  /** Where pushes, deletes and wipes wait their turn, in arrival order, so scrapes do not wait for them. */
  readonly writes: WriteQueue;
  readonly now: () => Date;
  /** `--push.disable-consistency-check` turned off. */
  readonly check: boolean;
  /** `--push.enable-utf8-names`: UTF-8 metric and label names in bodies, `U__` escaped label names in paths. */
  readonly utf8Names: boolean;
  readonly enableLifecycle: boolean;
  readonly enableAdminApi: boolean;
  readonly telemetryPath: string;
  /**
   * The path the browser reaches the gateway under, for the status page's links: `--web.external-url`'s path, else
   * the route prefix; no trailing slash ("" at the root).
   */
  readonly pathPrefix: string;
  /** Beyond upstream (0 = off): `--push.group-ttl` in milliseconds, for the status page's "TTL left". */
  readonly groupTtlMs: number;
  /** The gateway's own families (process, build info, HTTP counters), exposed with the pushed ones. */
  readonly ownFamilies: () => Promise<MetricFamily[]>;
  readonly status: () => Record<string, unknown>;
  readonly quit: () => void;
  /** Beyond upstream: `--aggregate.gauges`, how an aggregating push combines gauges (aggregate/add-family.ts). */
  readonly aggregateGauges: GaugeMode;
  /** Beyond upstream (0 = unlimited): largest push body. */
  readonly maxBodyBytes: number;
  readonly onRequest: (handler: string, method: string, status: number) => void;
  /** A push was handled (any outcome): its duration and body size, for the push summaries. */
  readonly onPush: (method: string, seconds: number, bytes: number) => void;
}

/** Go's `http.Error`: the message plus a newline, as text with nosniff (net/http server.go `Error`). */
export function textError(status: number, message: string): GatewayResponse {
  return {
    status,
    headers: { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" },
    body: `${message}\n`,
  };
}

/** httprouter's answer to a method its path does not have, naming the ones it has. */
export function methodNotAllowed(allow: string): GatewayResponse {
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

/** httprouter's automatic answer to OPTIONS on a path with routes (`HandleOPTIONS`): 200, empty, `Allow`. */
export function optionsAllowed(allow: string): GatewayResponse {
  return { status: 200, headers: { Allow: allow }, body: "" };
}

/** A gateway error as its status and message (errors.ts `httpStatus`); anything else is a bug and propagates. */
export function errorResponse(error: unknown): GatewayResponse {
  if (error instanceof PushgatewayError) return textError(httpStatus(error), error.message);
  throw error;
}

/** A text body written with `WriteHeader` + `Write` (no trailing newline, no nosniff), as upstream's main.go does. */
export function plain(status: number, body: string): GatewayResponse {
  return { status, headers: { "Content-Type": "text/plain; charset=utf-8" }, body };
}

/** The API's CORS and caching headers and Go's JSON encoding (upstream api/v1/api.go `respond`). */
export function apiJson(value: unknown): GatewayResponse {
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
    body: goMarshal(value),
  };
}
