import { formatGoFloat } from "../exposition/go-float.js";
import { parseRenderedFamily } from "../exposition/rendered-family.js";
import { goStruct } from "../go-json.js";
import { FAILURE_TIME, FAILURE_TIME_HELP, PUSH_TIME, PUSH_TIME_HELP } from "../store/metric-store.js";
import { apiJson, errorResponse, type GatewayContext, type GatewayResponse } from "./responses.js";

/** `GET /api/v1/status`: build information, flags and start time (upstream api/v1/api.go `status`). */
export function apiStatus(ctx: GatewayContext): GatewayResponse {
  return apiJson(goStruct({ status: "success", data: ctx.status() }));
}

/** `GET /api/v1/metrics`: every group with its families (upstream api/v1/api.go `metrics`). */
export function apiMetrics(ctx: GatewayContext): GatewayResponse {
  return apiJson(goStruct({ status: "success", data: metricGroups(ctx) }));
}

/** `OPTIONS` on any path under `/api/v1/`: the CORS preflight (upstream api/v1/api.go `options`). */
export function apiOptions(): GatewayResponse {
  const { "Content-Type": _, ...cors } = apiJson(null).headers;
  return { status: 200, headers: cors, body: "" };
}

/** `PUT /api/v1/admin/wipe` (only with `--web.enable-admin-api`): deletes every group, 202 (upstream handler/wipe.go). */
export async function wipe(ctx: GatewayContext): Promise<GatewayResponse> {
  try {
    await ctx.store.wipe();
  } catch (error) {
    return errorResponse(error);
  }
  return { status: 202, headers: {}, body: "" };
}

/** The `/api/v1/metrics` shape of upstream (api/v1/api.go): values as Go-formatted strings, per-family timestamps. */
function metricGroups(ctx: GatewayContext): unknown[] {
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
