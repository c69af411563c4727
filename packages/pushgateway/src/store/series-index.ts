import type { MetricType } from "../exposition/metric-family.js";
import type { RenderedFamily } from "../exposition/rendered-family.js";

/**
 * The store's index of what its groups hold, so that the consistency check looks up each pushed series instead of
 * scanning other groups (upstream re-gathers everything on every push): family name → series id → the group
 * holding it, family name → type → how many groups hold it with that type, and the series counts.
 */
export class SeriesIndex {
  #series = new Map<string, Map<string, string>>();
  #types = new Map<string, Map<MetricType, number>>();
  /** Family name → series held by all groups, which exceeds the index's size only when groups share a series. */
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

  /** Series id → the group holding it, for the family `name`. */
  holders(name: string): ReadonlyMap<string, string> | undefined {
    return this.#series.get(name);
  }

  /** Families held with more than one type, with the type indexed first. */
  *typeClashes(): Generator<[string, MetricType]> {
    for (const [name, types] of this.#types) {
      if (types.size < 2) continue;
      const [first] = types.keys();
      if (first !== undefined) yield [name, first];
    }
  }

  /** Families of which some series is held by two groups (only with the consistency check off). */
  *sharedSeries(): Generator<string> {
    for (const [name, total] of this.#familySeries) {
      if (total > (this.#series.get(name)?.size ?? 0)) yield name;
    }
  }

  clear(): void {
    this.#series.clear();
    this.#types.clear();
    this.#familySeries.clear();
    this.#count = 0;
  }

  /**
   * Indexes `family` of group `key` in place of `old`, the group's previous family of that name, and returns what to
   * store. A push repeating the group's series (the usual periodic push: new values, same labels) keeps the stored
   * key strings and leaves the index as it is: no Map operation per series, and the new key strings die young
   * instead of being kept (a repeated 100-series push into 100k series applied in 16 µs instead of 80-120,
   * bench/pushgateway/README.md).
   */
  reindex(key: string, options: { old: RenderedFamily | undefined; family: RenderedFamily }): RenderedFamily {
    const { old, family } = options;
    if (old !== undefined && this.repeats(old, family)) return { ...family, keys: old.keys };
    if (old !== undefined) this.unindex(key, old);
    this.index(key, family);
    return family;
  }

  /**
   * Whether `family` has the same type and series keys, in the same order, as `old`, a group's stored family, in a
   * family no two groups share a series of. When every group's series are distinct, the index holds exactly one entry
   * per stored series, each naming its group (index entries only ever name a group that holds the series): so
   * `old`'s series are all indexed under its group. With the check disabled a series can be held twice; the counts
   * then differ and every series is looked up as before.
   */
  repeats(old: RenderedFamily, family: RenderedFamily): boolean {
    if (old.type !== family.type || old.keys.length !== family.keys.length) return false;
    if ((this.#familySeries.get(family.name) ?? 0) !== (this.#series.get(family.name)?.size ?? 0))
      return false;
    for (let i = 0; i < old.keys.length; i++) if (old.keys[i] !== family.keys[i]) return false;
    return true;
  }

  index(key: string, family: RenderedFamily): void {
    this.#count += family.keys.length;
    this.#familySeries.set(family.name, (this.#familySeries.get(family.name) ?? 0) + family.keys.length);
    let held = this.#series.get(family.name);
    if (held === undefined) {
      held = new Map();
      this.#series.set(family.name, held);
    }
    for (const id of family.keys) held.set(id, key);
    let types = this.#types.get(family.name);
    if (types === undefined) {
      types = new Map();
      this.#types.set(family.name, types);
    }
    types.set(family.type, (types.get(family.type) ?? 0) + 1);
  }

  unindex(key: string, family: RenderedFamily): void {
    this.#count -= family.keys.length;
    const total = (this.#familySeries.get(family.name) ?? 0) - family.keys.length;
    if (total > 0) this.#familySeries.set(family.name, total);
    else this.#familySeries.delete(family.name);
    const held = this.#series.get(family.name);
    if (held !== undefined) {
      for (const id of family.keys) {
        // With the check disabled two groups may hold one series; only the holder's own entry is removed.
        if (held.get(id) === key) held.delete(id);
      }
      if (held.size === 0) this.#series.delete(family.name);
    }
    const types = this.#types.get(family.name);
    const count = (types?.get(family.type) ?? 0) - 1;
    if (count > 0) types?.set(family.type, count);
    else types?.delete(family.type);
    if (types?.size === 0) this.#types.delete(family.name);
  }
}
