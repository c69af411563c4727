import type { MetricFamily } from "../exposition/metric-family.js";
import type { GroupingLabels } from "../grouping-key.js";
import { groupingLabelsNotUtf8, pushAnswer, readPush } from "./push.js";
import {
  errorResponse,
  type GatewayContext,
  type GatewayRequest,
  type GatewayResponse,
} from "./responses.js";

/**
 * Beyond upstream (prometheus/pushgateway#87, #207, #355; what zapier/prom-aggregation-gateway exists for): `PUT`
 * and `POST` on `<prefix>/aggregate/metrics/job/...` add the pushed series into the group instead of replacing them
 * (aggregate/add-family.ts), so a client's gateway URL `http://gw:9091/aggregate` works with the Go and Python
 * clients unchanged. The body and grouping key are read as a push's; the answer is a push's, or 400 when a type or
 * bucket layout does not fit the group (nothing changed).
 */
export function aggregatePush(
  req: GatewayRequest,
  options: { ctx: GatewayContext; rest: string },
): Promise<GatewayResponse> {
  const { ctx } = options;
  // Synchronous up to the store's call, as a push, so queued writes reach the store in their order.
  return ctx.writes.run(() => {
    let labels: GroupingLabels;
    let families: MetricFamily[];
    let rejected: ReturnType<GatewayContext["store"]["aggregate"]>;
    try {
      ({ labels, families } = readPush(req, options));
      const notUtf8 = groupingLabelsNotUtf8({ labels, families }, ctx);
      if (notUtf8 !== undefined) return notUtf8;
      rejected = ctx.store.aggregate({
        labels,
        families,
        now: ctx.now(),
        check: ctx.check,
        gauges: ctx.aggregateGauges,
      });
    } catch (error) {
      return errorResponse(error);
    }
    return rejected instanceof Promise
      ? rejected.then((r) => pushAnswer(r, ctx), errorResponse)
      : pushAnswer(rejected, ctx);
  });
}
