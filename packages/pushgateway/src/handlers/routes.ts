import { aggregatePush } from "./aggregate.js";
import { apiMetrics, apiOptions, apiStatus, wipe } from "./api-v1.js";
import { deleteGroup } from "./delete.js";
import { adminDeleteGroups, apiGroups } from "./groups-api.js";
import { healthy, quit, quitMethodNotAllowed, ready } from "./lifecycle.js";
import { scrape } from "./metrics.js";
import { otlpMetrics } from "./otlp.js";
import { push } from "./push.js";
import {
  type GatewayContext,
  type GatewayRequest,
  type GatewayResponse,
  methodNotAllowed,
  optionsAllowed,
  textError,
} from "./responses.js";
import { staticAsset } from "./static-assets.js";
import { statusPage } from "./status-page.js";

type Handler = (req: GatewayRequest, ctx: GatewayContext) => GatewayResponse | Promise<GatewayResponse>;

/** One path of the route table, with a handler per method. */
interface Route {
  readonly path: string | RegExp | ((ctx: GatewayContext) => string);
  readonly methods: Readonly<Record<string, Handler>>;
  /**
   * The answer to a method the path does not have: httprouter's 405 naming `allow`, a handler of its own, or
   * `"next"` when the path is also served by a later route (the API's OPTIONS on any path under /api/v1/).
   */
  readonly otherMethods: { allow: string } | Handler | "next";
  /** The `handler` label of `pushgateway_http_requests_total` (per method where they differ), when counted. */
  readonly counted?: string | Readonly<Record<string, string>>;
  /** Only registered when this holds (upstream registers the wipe route only with the admin API). */
  readonly when?: (ctx: GatewayContext) => boolean;
}

/** A read of the store: a shared store (Redis) first catches its cache up, so every answered write is seen. */
const fresh =
  (handler: Handler): Handler =>
  async (req, ctx) => {
    await ctx.store.refresh?.();
    return handler(req, ctx);
  };

/** The path after `/metrics/`, where the grouping key starts. */
const groupingKey = (req: GatewayRequest) => req.path.slice("/metrics/".length);
/** The same for an aggregating push, after `/aggregate/metrics/`. */
const aggregateKey = (req: GatewayRequest) => req.path.slice("/aggregate/metrics/".length);

const PUSH_ALLOW = "DELETE, OPTIONS, POST, PUT";
const GET_ALLOW = { allow: "GET, OPTIONS" } as const;

/**
 * The route table, in upstream main.go's order. Upstream's push routes are /metrics/job/:job{/*labels} and
 * /metrics/job@base64/:job{...}; the redirect of the bare `/metrics/job/` comes before (http/router-redirect.ts).
 */
const ROUTES: readonly Route[] = [
  {
    path: /^\/metrics\/job(@base64)?\/[^/]/,
    methods: {
      OPTIONS: () => ({ status: 200, headers: { Allow: PUSH_ALLOW }, body: "" }),
      PUT: (req, ctx) => push(req, { ctx, rest: groupingKey(req), replace: true }),
      POST: (req, ctx) => push(req, { ctx, rest: groupingKey(req), replace: false }),
      DELETE: (req, ctx) => deleteGroup(groupingKey(req), ctx),
    },
    otherMethods: { allow: PUSH_ALLOW },
    counted: { PUT: "push", POST: "push", DELETE: "delete" },
  },
  // Beyond upstream: aggregating pushes (handlers/aggregate.ts); DELETE there resets the group.
  {
    path: "/aggregate/metrics/job/",
    methods: {},
    otherMethods: () => ({ status: 307, headers: { Location: "/aggregate/metrics/job" }, body: "" }),
  },
  {
    path: /^\/aggregate\/metrics\/job(@base64)?\/[^/]/,
    methods: {
      OPTIONS: () => ({ status: 200, headers: { Allow: PUSH_ALLOW }, body: "" }),
      PUT: (req, ctx) => aggregatePush(req, { ctx, rest: aggregateKey(req) }),
      POST: (req, ctx) => aggregatePush(req, { ctx, rest: aggregateKey(req) }),
      DELETE: (req, ctx) => deleteGroup(aggregateKey(req), ctx),
    },
    otherMethods: { allow: PUSH_ALLOW },
    counted: { PUT: "aggregate", POST: "aggregate", DELETE: "delete" },
  },
  // Beyond upstream: an OTLP/HTTP metrics receiver (handlers/otlp.ts).
  { path: "/v1/metrics", methods: { POST: otlpMetrics }, otherMethods: { allow: "POST" }, counted: "otlp" },
  { path: (ctx) => ctx.telemetryPath, methods: { GET: fresh(scrape) }, otherMethods: GET_ALLOW },
  { path: /^\/api\/v1\//, methods: { OPTIONS: apiOptions }, otherMethods: "next", counted: "api/v1/options" },
  { path: "/-/healthy", methods: { GET: healthy }, otherMethods: GET_ALLOW, counted: "healthy" },
  { path: "/-/ready", methods: { GET: (_, ctx) => ready(ctx) }, otherMethods: GET_ALLOW, counted: "ready" },
  {
    path: "/-/quit",
    methods: {
      PUT: (_, ctx) => quit(ctx),
      POST: (_, ctx) => quit(ctx),
      GET: (req) => (req.prefixed ? methodNotAllowed("OPTIONS, POST, PUT") : quitMethodNotAllowed()),
    },
    // Under a prefix upstream's GET /-/quit is outside it (http/server.ts answers there).
    otherMethods: (req) =>
      routerRefusal(req, req.prefixed ? "OPTIONS, POST, PUT" : "GET, OPTIONS, POST, PUT"),
  },
  {
    path: "/api/v1/status",
    methods: { GET: (_, ctx) => apiStatus(ctx) },
    otherMethods: GET_ALLOW,
    counted: "api/v1/status",
  },
  {
    path: "/api/v1/metrics",
    methods: { GET: fresh((_, ctx) => apiMetrics(ctx)) },
    otherMethods: GET_ALLOW,
    counted: "api/v1/metrics",
  },
  {
    path: "/api/v1/admin/wipe",
    methods: { PUT: (_, ctx) => wipe(ctx) },
    otherMethods: { allow: "OPTIONS, PUT" },
    counted: "wipe",
    when: (ctx) => ctx.enableAdminApi,
  },
  // Beyond upstream: groups by matcher (handlers/groups-api.ts).
  {
    path: "/api/v1/groups",
    methods: { GET: fresh(apiGroups) },
    otherMethods: GET_ALLOW,
    counted: "api/v1/groups",
  },
  {
    path: "/api/v1/admin/groups",
    methods: { DELETE: fresh(adminDeleteGroups) },
    otherMethods: { allow: "DELETE, OPTIONS" },
    counted: "api/v1/admin/groups",
    when: (ctx) => ctx.enableAdminApi,
  },
  { path: /^\/static\//, methods: { GET: staticAsset }, otherMethods: GET_ALLOW, counted: "static" },
  { path: "/", methods: { GET: fresh(statusPage) }, otherMethods: GET_ALLOW, counted: "status" },
  {
    path: "/status",
    methods: { GET: fresh(statusPage) },
    otherMethods: GET_ALLOW,
    counted: "status",
  },
];

/** httprouter on a known path without the method: OPTIONS is answered with `Allow` (HandleOPTIONS), else 405. */
function routerRefusal(req: GatewayRequest, allow: string): GatewayResponse {
  return req.method === "OPTIONS" ? optionsAllowed(allow) : methodNotAllowed(allow);
}

function matches(route: Route, req: GatewayRequest, ctx: GatewayContext): boolean {
  if (route.when !== undefined && !route.when(ctx)) return false;
  const { path } = route;
  if (typeof path === "string") return req.path === path;
  if (typeof path === "function") return req.path === path(ctx);
  return path.test(req.path);
}

/**
 * Answers a request from the route table with upstream's statuses and texts: an unknown path is 404
 * `404 page not found`, a known path with another method 405 with `Allow` (httprouter).
 */
export async function handleRequest(req: GatewayRequest, ctx: GatewayContext): Promise<GatewayResponse> {
  for (const route of ROUTES) {
    if (!matches(route, req, ctx)) continue;
    const handler = route.methods[req.method];
    if (handler === undefined) {
      if (route.otherMethods === "next") continue;
      if (typeof route.otherMethods === "function") return route.otherMethods(req, ctx);
      return routerRefusal(req, route.otherMethods.allow);
    }
    const response = await handler(req, ctx);
    const counted = typeof route.counted === "string" ? route.counted : route.counted?.[req.method];
    if (counted !== undefined) ctx.onRequest(counted, req.method, response.status);
    return response;
  }
  return textError(404, "404 page not found");
}
