import type { MetricFamily } from "../exposition/metric-family.js";
import { type KeyedFamily, renderFamily } from "../exposition/rendered-family.js";
import type { GroupingLabels } from "../grouping-key.js";
import type { PushRequest } from "./metric-store.js";

/** The part of a push that does not depend on the store: see {@link preparePush}. */
export interface PreparedPush {
  /** The pushed families with the grouping labels (and an empty `instance`) applied, labels sorted. */
  readonly sanitized: readonly MetricFamily[];
  /** The same, rendered: the store keeps only lines and keys, and a scrape sorts and joins. */
  readonly rendered: readonly KeyedFamily[];
}

/** Applies the grouping labels to a push's families and renders their lines; pure, so it can run ahead. */
export function preparePush(request: Pick<PushRequest, "labels" | "families">): PreparedPush {
  const sanitized = request.families.map((f) => sanitize(f, request.labels));
  return { sanitized, rendered: sanitized.map(renderFamily) };
}

/**
 * Grouping labels override and complete every series' labels; `instance=""` when absent; sorted (upstream's
 * sanitizeLabels, storage/diskmetricstore.go).
 */
export function sanitize(family: MetricFamily, grouping: GroupingLabels): MetricFamily {
  const groupingPairs = Object.entries(grouping);
  const withInstance = "instance" in grouping ? groupingPairs : [...groupingPairs, ["instance", ""]];
  return {
    ...family,
    metrics: family.metrics.map((m) => {
      // A plain loop over a handful of labels: this runs for every pushed series (a Map per series cost more).
      const labels: [string, string][] = [];
      let instance = false;
      // Upstream's sanitizeLabels sets the first label of a grouping label's name to the grouping value, in place; a
      // second one (protobuf allows it) is kept, and the push is refused for it as client_golang's Gather refuses
      // it (consistency-check.ts), instead of being stored with one of the values.
      let set: string[] | undefined;
      for (const pair of m.labels) {
        const name = pair[0];
        if (Object.hasOwn(grouping, name) && !set?.includes(name)) {
          set ??= [];
          set.push(name);
          labels.push([name, grouping[name] as string]);
          continue;
        }
        if (name === "instance") instance = true;
        labels.push(pair);
      }
      for (const pair of instance ? groupingPairs : withInstance)
        if (!set?.includes(pair[0] as string)) labels.push(pair as [string, string]);
      return { ...m, labels: labels.sort(byName) };
    }),
  };
}

function byName([a]: [string, string], [b]: [string, string]): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
