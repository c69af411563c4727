import type { MetricType } from "../exposition/metric-family.js";
import type { RenderedFamily } from "../exposition/rendered-family.js";

/**
 * The store's index of what its groups hold, so that a push is judged without re-gathering every group (upstream
 * does that on every push): family name → type → how many groups hold it with that type, and the series counts.
 * Which group could hold a pushed series is found from the grouping label names (grouping-name-sets.ts), not from an
 * entry per stored series: a `Map` entry per series was 3.5 MB of a 100k-series store (bench/pushgateway/README.md).
 */
export class SeriesIndex {
  #types = new Map<string, Map<MetricType, number>>();
  /** Family name → series held by all groups. */
  #familySeries = new Map<string, number>();
  /** Series held by all groups (pushed families only), kept current so the series limit costs nothing. */
  #count = 0;

  /** Series held by all groups. */
  get count(): number {
    return this.#count;
  }

  /** How many groups hold the family `name` with each type. */
  types(name: string): ReadonlyMap<MetricType, number> | undefined {
    return this.#types.get(name);
  }

  /** Families held with more than one type, with the type indexed first. */
  *typeClashes(): Generator<[string, MetricType]> {
    for (const [name, types] of this.#types) {
      if (types.size < 2) continue;
      const [first] = types.keys();
      if (first !== undefined) yield [name, first];
    }
  }

  /** The names of the families some group holds, in the order they were first held. */
  familyNames(): IterableIterator<string> {
    return this.#familySeries.keys();
  }

  clear(): void {
    this.#types.clear();
    this.#familySeries.clear();
    this.#count = 0;
  }

  /** Indexes `family` of a group in place of `old`, the group's previous family of that name. */
  reindex(options: { old: RenderedFamily | undefined; family: RenderedFamily }): void {
    if (options.old !== undefined) this.unindex(options.old);
    this.index(options.family);
  }

  index(family: RenderedFamily): void {
    const series = family.lines.length;
    this.#count += series;
    this.#familySeries.set(family.name, (this.#familySeries.get(family.name) ?? 0) + series);
    let types = this.#types.get(family.name);
    if (types === undefined) {
      types = new Map();
      this.#types.set(family.name, types);
    }
    types.set(family.type, (types.get(family.type) ?? 0) + 1);
  }

  unindex(family: RenderedFamily): void {
    const series = family.lines.length;
    this.#count -= series;
    const total = (this.#familySeries.get(family.name) ?? 0) - series;
    if (total > 0) this.#familySeries.set(family.name, total);
    else this.#familySeries.delete(family.name);
    const types = this.#types.get(family.name);
    const count = (types?.get(family.type) ?? 0) - 1;
    if (count > 0) types?.set(family.type, count);
    else types?.delete(family.type);
    if (types?.size === 0) this.#types.delete(family.name);
  }
}
