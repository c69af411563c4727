import { parseGroupingKey } from "../grouping-key.js";
import { errorResponse, type GatewayContext, type GatewayResponse } from "./responses.js";

/**
 * `DELETE /metrics/job/...`: removes exactly the group of that grouping key and answers 202 whether or not it
 * existed (upstream handler/delete.go queues the delete and does not wait); 400 for a bad grouping key.
 */
export async function deleteGroup(rest: string, ctx: GatewayContext): Promise<GatewayResponse> {
  try {
    await ctx.store.delete(parseGroupingKey(rest, { utf8: ctx.utf8Names }));
  } catch (error) {
    return errorResponse(error);
  }
  return { status: 202, headers: {}, body: "" };
}
