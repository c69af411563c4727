import type { RenderedFamily } from "../../exposition/rendered-family.js";
import type { GroupingLabels } from "../../grouping-key.js";
import type { Group } from "../metric-store.js";

/**
 * A group as the persistence writer takes it: its families as stored (lines, not parsed back), so that taking the
 * snapshot costs the event loop only a reference per family; the lines are parsed on the persistence worker.
 */
export interface RenderedGroup {
  readonly labels: GroupingLabels;
  readonly pushTime: number;
  readonly failureTime: number;
  readonly pushedAt: Record<string, number>;
  readonly families: readonly Omit<RenderedFamily, "keys">[];
}

/** The group as of now: stored families are replaced, never changed, so holding them is a consistent copy. */
export function renderedGroup(g: Group): RenderedGroup {
  return {
    labels: g.labels,
    pushTime: g.pushTime,
    failureTime: g.failureTime,
    pushedAt: Object.fromEntries(g.pushedAt),
    // As stored, without series keys: the worker does not need them, and they would double what is copied to it.
    families: [...g.families.values()],
  };
}
