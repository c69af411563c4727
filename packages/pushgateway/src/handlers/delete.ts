import { hasInvalidUtf8 } from "../exposition/lossless-utf8.js";
import { parseGroupingKey } from "../grouping-key.js";
import { errorResponse, type GatewayContext, type GatewayResponse } from "./responses.js";

/**
 * `DELETE /metrics/job/...`: removes exactly the group of that grouping key and answers 202 whether or not it
 * existed (upstream handler/delete.go queues the delete and does not wait); 400 for a bad grouping key. It waits its
 * turn behind the writes that came before (handlers/write-queue.ts), so it never overtakes an earlier push.
 */
export function deleteGroup(rest: string, ctx: GatewayContext): Promise<GatewayResponse> {
  return ctx.writes.run(async () => {
    try {
      // The store is called before the first await: queued writes reach it in order.
      const labels = parseGroupingKey(rest, { utf8: ctx.utf8Names });
      // Grouping labels that are not UTF-8 name no group ours can hold (such a push is refused): nothing to delete.
      if (!Object.values(labels).some(hasInvalidUtf8)) await ctx.store.delete(labels);
    } catch (error) {
      return errorResponse(error);
    }
    return { status: 202, headers: {}, body: "" };
  });
}
