import { lineSeriesKey } from "../exposition/rendered-family.js";
import { collectedBefore, notOfType, seriesAt } from "./consistency-check.js";
import type { Group } from "./metric-store.js";
import type { SeriesIndex } from "./series-index.js";

/**
 * With the consistency check off (`--push.disable-consistency-check`) a store can hold what a gather rejects; upstream
 * then fails every scrape with the gatherer's error (storage/diskmetricstore.go, client_golang's Gather). This finds
 * the first such problem among `groups` (in their order): a family held with two types, or a series held by two groups.
 * It looks at every stored series, so the store keeps its answer until it changes (memory-store.ts).
 */
export function findInconsistency(groups: Iterable<Group>, index: SeriesIndex): string | undefined {
  const all = [...groups];
  for (const [name, held] of index.typeClashes()) {
    for (const group of all) {
      const f = group.families.get(name);
      if (f === undefined || f.type === held || f.lines.length === 0) continue;
      return notOfType(f, { metric: seriesAt(f, 0), held });
    }
  }
  for (const name of index.familyNames()) {
    const seen = new Set<string>();
    for (const group of all) {
      const f = group.families.get(name);
      if (f === undefined) continue;
      for (let i = 0; i < f.lines.length; i++) {
        const id = lineSeriesKey(f.lines.at(i) as string);
        if (!seen.has(id)) {
          seen.add(id);
          continue;
        }
        return collectedBefore(f, seriesAt(f, i));
      }
    }
  }
  return undefined;
}
