import type { MetricFamily } from "./metric-family.js";
import { expositionOrder, parseRenderedFamily, type RenderedFamily } from "./rendered-family.js";

/**
 * The merged families of a scrape in the structured form the protobuf formats need, in the text exposition's order
 * (`expositionOrder`), parsed back from the stored lines. A protobuf scrape pays that parse; the text scrape, what
 * Prometheus mostly asks for, never does.
 */
export function exposedFamilies(families: readonly RenderedFamily[]): MetricFamily[] {
  return expositionOrder(families).map(({ family: f, order }) =>
    parseRenderedFamily({
      ...f,
      lines: Array.from(order, (i) => f.lines.at(i) ?? ""),
      ...(f.protoValues === undefined ? {} : { protoValues: Array.from(order, (i) => f.protoValues?.[i]) }),
    }),
  );
}
