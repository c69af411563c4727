import { goStruct } from "@local/go-compat/json";
import { PushgatewayError, SelectorError } from "../errors.js";
import {
  type GroupSelector,
  parseGroupSelector,
  selectorMatches,
  selectsEverything,
} from "../group-selector.js";
import { groupEntry } from "./api-v1.js";
import { apiJson, type GatewayContext, type GatewayRequest, type GatewayResponse } from "./responses.js";

/**
 * Beyond upstream (prometheus/pushgateway#77, #162, #225, #256, #742): `GET /api/v1/groups?match[]=<selector>`
 * lists the groups one of the selectors selects (every group without `match[]`), each as `/api/v1/metrics` shows a
 * group but without its metrics. A selector that does not parse is Prometheus' API error, 400 `bad_data`.
 */
export function apiGroups(req: GatewayRequest, ctx: GatewayContext): GatewayResponse {
  try {
    const query = readQuery(req.query, ["match[]"]);
    const selectors = query.match.map(parseGroupSelector);
    const groups = ctx.store
      .groups()
      .filter((g) => selectors.length === 0 || selectors.some((s) => selectorMatches(g.labels, s)));
    return apiJson(
      goStruct({ status: "success", data: groups.map((g) => groupEntry(g, { families: false })) }),
    );
  } catch (error) {
    return apiError(error);
  }
}

/**
 * Beyond upstream, behind `--web.enable-admin-api`: `DELETE /api/v1/admin/groups?match[]=<selector>` deletes the
 * groups one of the selectors selects and answers 202 `{"status":"success","data":{"deleted":N,"groups":[…labels…]}}`;
 * with `dry_run=true` it answers the same (202, the same body) and deletes nothing. A selector that selects everything
 * (`{}`, or one an empty label set passes) is refused unless `all=true`, which alone deletes every group. Queued
 * behind the writes before it; the store decides the groups when it applies the delete (in Redis mode, every
 * replica at the same place in the log).
 */
export function adminDeleteGroups(req: GatewayRequest, ctx: GatewayContext): Promise<GatewayResponse> {
  let match: string[];
  let dryRun: boolean;
  try {
    const query = readQuery(req.query, ["match[]", "dry_run", "all"]);
    const all = query.flag("all");
    dryRun = query.flag("dry_run");
    if (query.match.length === 0 && !all)
      throw new SelectorError(
        'no match[] selector: name the groups to delete, e.g. match[]={job="batch"}, or pass all=true to delete every group',
      );
    for (const [i, selector] of query.match.map(parseGroupSelector).entries()) {
      if (!all && selectsEverything(selector))
        throw new SelectorError(
          `match[]=${query.match[i]} selects every group (no matcher refuses an empty label set); pass all=true as well to delete every group`,
        );
    }
    match = query.match.length === 0 ? ["{}"] : query.match;
  } catch (error) {
    return Promise.resolve(apiError(error));
  }
  return ctx.writes.run(() => {
    if (dryRun) return deletedAnswer(202, selected(ctx, match));
    let deleted: ReturnType<GatewayContext["store"]["deleteMatching"]>;
    try {
      deleted = ctx.store.deleteMatching(match);
    } catch (error) {
      return apiError(error);
    }
    return deleted instanceof Promise
      ? deleted.then((labels) => deletedAnswer(202, labels), apiError)
      : deletedAnswer(202, deleted);
  });
}

function selected(ctx: GatewayContext, match: readonly string[]) {
  const selectors: GroupSelector[] = match.map(parseGroupSelector);
  return ctx.store
    .groups()
    .filter((g) => selectors.some((s) => selectorMatches(g.labels, s)))
    .map((g) => g.labels);
}

function deletedAnswer(status: number, groups: readonly Readonly<Record<string, string>>[]): GatewayResponse {
  return {
    ...apiJson(goStruct({ status: "success", data: { deleted: groups.length, groups } })),
    status,
  };
}

/** The query of a groups request: repeated `match[]`, and `true`/`false` flags; any other parameter is refused. */
function readQuery(query: string | undefined, known: readonly string[]) {
  const params = new URLSearchParams(query ?? "");
  for (const name of params.keys()) {
    if (!known.includes(name))
      throw new SelectorError(
        `unknown parameter ${JSON.stringify(name)}; this endpoint takes ${known.join(", ")}`,
      );
  }
  return {
    match: params.getAll("match[]"),
    flag(name: string): boolean {
      const values = params.getAll(name);
      if (values.length === 0) return false;
      const value = values.at(-1);
      if (value !== "true" && value !== "false")
        throw new SelectorError(`${name}=${value ?? ""} is neither true nor false`);
      return value === "true";
    },
  };
}

/** Prometheus' HTTP API error shape (`{"status":"error","errorType":"bad_data","error":…}`), with its status. */
function apiError(error: unknown): GatewayResponse {
  if (!(error instanceof PushgatewayError)) throw error;
  const unavailable = error.code === "PUSHGATEWAY_STORE_UNAVAILABLE";
  return {
    ...apiJson(
      goStruct({
        status: "error",
        errorType: unavailable ? "unavailable" : "bad_data",
        error: error.message,
      }),
    ),
    status: unavailable ? 503 : 400,
  };
}
