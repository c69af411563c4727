import {
  type GatewayContext,
  type GatewayResponse,
  methodNotAllowed,
  optionsAllowed,
  plain,
} from "./responses.js";

/** `GET /-/healthy` and `/-/ready`: 200 `OK` (upstream main.go). */
export function healthy(): GatewayResponse {
  return { status: 200, headers: { "Content-Type": "text/plain; charset=utf-8" }, body: "OK" };
}

/**
 * `GET /-/ready`: 200 `OK` (upstream main.go); beyond upstream, a replica on a shared store (Redis) that cannot reach
 * it answers 503 with the reason, so a load balancer sends pushes elsewhere.
 */
export async function ready(ctx: GatewayContext): Promise<GatewayResponse> {
  const problem = await ctx.store.notReady?.();
  if (problem !== undefined) return plain(503, `Service Unavailable: ${problem}`);
  return healthy();
}

/**
 * `PUT`/`POST /-/quit`: with `--web.enable-lifecycle` answers and then shuts down gracefully, else 403. Upstream
 * writes these with WriteHeader + Write (main.go): no trailing newline, no nosniff.
 */
export function quit(ctx: GatewayContext): GatewayResponse {
  if (!ctx.enableLifecycle) return plain(403, "Lifecycle API is not enabled.");
  setImmediate(ctx.quit);
  return plain(200, "Requesting termination... Goodbye!");
}

/** `GET /-/quit` (upstream main.go registers this 405 as the GET handler, outside the route prefix). */
export function quitMethodNotAllowed(): GatewayResponse {
  return plain(405, "Only POST or PUT requests allowed.");
}

/**
 * `/-/quit` outside a route prefix, where upstream has only the GET route: GET its 405, OPTIONS httprouter's answer
 * naming GET, anything else httprouter's 405.
 */
export function bareQuit(method: string): GatewayResponse {
  if (method === "GET") return quitMethodNotAllowed();
  return method === "OPTIONS" ? optionsAllowed("GET, OPTIONS") : methodNotAllowed("GET, OPTIONS");
}
