import type { MetricFamily } from "./metric-family.js";
import { parseRenderedFamily, type RenderedFamily } from "./rendered-family.js";

/**
 * The merged families of a scrape in the structured form the protobuf formats need, in the text exposition's order
 * (families by name, series by their sort key, empty families left out), parsed back from the stored lines. A
 * protobuf scrape pays that parse; the text scrape, what Prometheus mostly asks for, never does.
 */
export function exposedFamilies(families: readonly RenderedFamily[]): MetricFamily[] {
  return [...families]
    .filter((f) => f.lines.length > 0)
    .sort((a, b) => compare(a.name, b.name))
    .map((f) => {
      const order = Array.from(f.keys, (_k, i) => i).sort((a, b) =>
        compare(f.keys[a] ?? "", f.keys[b] ?? ""),
      );
      return parseRenderedFamily({
        ...f,
        lines: order.map((i) => f.lines[i] ?? ""),
        keys: order.map((i) => f.keys[i] ?? ""),
      });
    });
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
