import { type GroupingLabels, groupKey, joinKey } from "../grouping-key.js";

/**
 * The distinct sets of grouping label names among a store's groups, with how many groups have each. Every series a
 * group holds carries the group's grouping labels (prepared-push.ts `sanitize`, upstream's storage does the same), so
 * only a group whose grouping labels are among a series' labels can hold it: for each set there is at most one such
 * group, the one keyed by the series' values of those names. A fleet uses a few sets (`job`, `job`+`instance`), so
 * the consistency check looks up a few groups per pushed series instead of keeping an entry per stored series.
 */
export class GroupingNameSets {
  #sets = new Map<string, { readonly names: readonly string[]; groups: number }>();

  /** Counts a group with grouping labels `labels`. */
  add(labels: GroupingLabels): void {
    const names = Object.keys(labels).sort();
    const id = joinKey(names);
    const set = this.#sets.get(id);
    if (set === undefined) this.#sets.set(id, { names, groups: 1 });
    else set.groups++;
  }

  /** Forgets a group counted by {@link add}. */
  remove(labels: GroupingLabels): void {
    const id = joinKey(Object.keys(labels).sort());
    const set = this.#sets.get(id);
    if (set === undefined) return;
    if (--set.groups <= 0) this.#sets.delete(id);
  }

  clear(): void {
    this.#sets.clear();
  }

  /**
   * The sets of names other than `own`'s: only a group with one of them can hold a series pushed to the group of
   * `own` besides that group (a series of its own projects onto it). Empty when every group has `own`'s names.
   */
  others(own: GroupingLabels): (readonly string[])[] {
    const ownId = joinKey(Object.keys(own).sort());
    const others: (readonly string[])[] = [];
    for (const [id, { names }] of this.#sets) if (id !== ownId) others.push(names);
    return others;
  }
}

/**
 * The key ({@link groupKey}) of the group with grouping label `names` that could hold a series with `labels`, or
 * undefined when the series lacks one of the names.
 */
export function candidateGroup(
  names: readonly string[],
  labels: ReadonlyMap<string, string>,
): string | undefined {
  // Entries, then fromEntries: a name `__proto__` is a key like any other.
  const projected: [string, string][] = [];
  for (const name of names) {
    const value = labels.get(name);
    if (value === undefined) return undefined;
    projected.push([name, value]);
  }
  return groupKey(Object.fromEntries(projected));
}
