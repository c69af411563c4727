import { goQuote } from "@local/go-compat/quote";
import type { Metric, MetricFamily, MetricType } from "../exposition/metric-family.js";
import {
  type KeyedFamily,
  lineSeriesKey,
  type RenderedFamily,
  seriesKeyLabels,
} from "../exposition/rendered-family.js";
import { type GroupingLabels, groupKey } from "../grouping-key.js";
import { collectedBefore, notOfType, type PushInvalidity } from "./consistency-check.js";
import { candidateGroup, type GroupingNameSets } from "./grouping-name-sets.js";
import { FAILURE_TIME, type Group, PUSH_TIME } from "./metric-store.js";
import { sanitize } from "./prepared-push.js";
import type { SeriesIndex } from "./series-index.js";

/** The store's groups and the indexes a push is checked against ({@link againstOthers}). */
export interface HeldGroups {
  readonly groups: ReadonlyMap<string, Group>;
  readonly index: SeriesIndex;
  readonly nameSets: GroupingNameSets;
}

/** The errors {@link againstOthers} found: in series order, by series index, and whether the family's type clashed. */
export type OthersErrors = string[] & { typeClash?: boolean; bySeries: Map<number, string> };

/**
 * The errors of a pushed family against the other groups (upstream's checkWriteRequest gathers them all): a type
 * another group holds it with (every pushed series then `is not a` that type), else its series another group holds
 * (`was collected before`), by series index. `skip`: series already failing on their own, which Go does not hash.
 */
export function againstOthers(
  f: KeyedFamily,
  options: HeldGroups & {
    key: string;
    labels: GroupingLabels;
    family: number;
    series: (family: number, f: KeyedFamily, i: number) => Metric | undefined;
    skip?: ReadonlyMap<number | undefined, string>;
  },
): OthersErrors | undefined {
  const { family, series } = options;
  // Another group holding the family with another type (the pushing group's own family is being replaced).
  const mine = options.groups.get(options.key)?.families.get(f.name);
  for (const [type, count] of options.index.types(f.name) ?? []) {
    if (type !== f.type && count - (mine?.type === type ? 1 : 0) > 0) {
      const all = Array.from(f.keys.keys(), (i) =>
        notOfType(f, { metric: series(family, f, i), held: type }),
      );
      return Object.assign(all, { typeClash: true, bySeries: new Map<number, string>() });
    }
  }
  // Another group holding one of the series: only a group whose grouping label names another group uses can
  // (grouping-name-sets.ts); with a single set of names (the usual fleet) there is nothing to look up.
  const others = options.nameSets.others(options.labels);
  if (others.length === 0 || options.index.types(f.name) === undefined) return undefined;
  // Each other group's family looked up is made a set of its series keys once.
  const ids = new Map<RenderedFamily, Set<string>>();
  const heldIds = (held: RenderedFamily) =>
    ids.get(held) ?? ids.set(held, new Set(Array.from(held.lines, lineSeriesKey))).get(held);
  const found: OthersErrors = Object.assign([] as string[], { bySeries: new Map<number, string>() });
  for (const [i, id] of f.keys.entries()) {
    if (options.skip?.has(i)) continue;
    const labels = seriesKeyLabels(id) ?? new Map(series(family, f, i)?.labels ?? []);
    for (const names of others) {
      const candidate = candidateGroup(names, labels);
      const held = candidate === undefined ? undefined : options.groups.get(candidate)?.families.get(f.name);
      if (held !== undefined && heldIds(held)?.has(id)) {
        const message = collectedBefore(f, series(family, f, i));
        found.push(message);
        found.bySeries.set(i, message);
        break;
      }
    }
  }
  return found.length === 0 ? undefined : found;
}

/**
 * Every error of a push, as client_golang's Gather collects them: per family, a type clash with the gateway's own
 * family skips it (`invalid`, the state-free verdict); else per series the first of a clash with another group's
 * type, its own problem, a duplicate. Pushed push-time families are replaced before upstream gathers.
 */
export function pushErrors(
  families: readonly KeyedFamily[],
  options: HeldGroups & {
    key: string;
    labels: GroupingLabels;
    check: boolean;
    replace?: boolean | undefined;
    own: () => readonly MetricFamily[];
    invalid: PushInvalidity | undefined;
    series: (family: number, f: KeyedFamily, i: number) => Metric | undefined;
  },
): string[] {
  const errors: string[] = [];
  // The push's families by name, for the suffix check (first index of a name).
  const byName = new Map<string, number>();
  for (const [i, f] of families.entries()) if (!byName.has(f.name)) byName.set(f.name, i);
  for (const [family, f] of families.entries()) {
    const mine = options.invalid?.errors?.filter((e) => e.family === family) ?? [];
    const skipped = mine.find((e) => e.series === undefined);
    if (skipped !== undefined) {
      errors.push(skipped.message);
      continue;
    }
    const collision = options.check
      ? suffixCollision(f, { ...options, families, byName, family })
      : undefined;
    if (collision !== undefined) {
      errors.push(collision);
      continue;
    }
    const bySeries = mine.length === 0 ? undefined : new Map(mine.map((e) => [e.series, e.message]));
    const others =
      options.check && f.name !== PUSH_TIME && f.name !== FAILURE_TIME
        ? againstOthers(f, { ...options, family, ...(bySeries === undefined ? {} : { skip: bySeries }) })
        : undefined;
    if (others?.typeClash) {
      errors.push(...others);
      continue;
    }
    if (others === undefined && bySeries === undefined) continue;
    for (const i of f.keys.keys()) {
      const message = bySeries?.get(i) ?? others?.bySeries.get(i);
      if (message !== undefined) errors.push(message);
    }
  }
  return errors;
}

/** What {@link suffixCollision} and {@link heldType} look at: the store, the push's families and the one checked. */
interface SuffixContext extends HeldGroups {
  readonly key: string;
  readonly replace?: boolean | undefined;
  readonly own: () => readonly MetricFamily[];
  readonly families: readonly KeyedFamily[];
  readonly byName: ReadonlyMap<string, number>;
  readonly family: number;
}

/**
 * client_golang's checkSuffixCollisions (registry.go) between a pushed family and the names the gateway will expose
 * after the push: `x_count`, `x_sum` (and a histogram's `x_bucket`) beside a summary or histogram `x`. Go meets the
 * two in map order and names the second; here the pushed one is named (the later one when both are pushed).
 */
function suffixCollision(f: KeyedFamily, options: SuffixContext): string | undefined {
  const name = f.name;
  const suffix = ["_count", "_sum", "_bucket"].find((s) => name.endsWith(s));
  const base = suffix === undefined ? "" : name.slice(0, -suffix.length);
  const summaryLike = f.type === "summary" || f.type === "histogram";
  if (base === "" && !summaryLike) return undefined;
  const held = (other: string): MetricType | undefined => heldType(other, options);
  if (base !== "") {
    const type = held(base);
    if (type === "summary" && suffix !== "_bucket")
      return `collected metric named ${goQuote(name)} collides with previously collected summary named ${goQuote(base)}`;
    if (type === "histogram")
      return `collected metric named ${goQuote(name)} collides with previously collected histogram named ${goQuote(base)}`;
  }
  if (!summaryLike) return undefined;
  for (const s of ["_count", "_sum"])
    if (held(name + s) !== undefined)
      return `collected histogram or summary named ${goQuote(name)} collides with previously collected metric named ${goQuote(name + s)}`;
  if (f.type === "histogram" && held(`${name}_bucket`) !== undefined)
    return `collected histogram named ${goQuote(name)} collides with previously collected metric named ${goQuote(`${name}_bucket`)}`;
  return undefined;
}

/**
 * The type of the family `name` the gateway will expose once the push is applied, as far as it can collide with the
 * pushed family at `family`: the gateway's own, an earlier one of the push, or one another group (or, for a POST that
 * does not push it again, the pushing group) holds.
 */
function heldType(name: string, options: SuffixContext): MetricType | undefined {
  const pushed = options.byName.get(name);
  if (pushed !== undefined) return pushed < options.family ? options.families[pushed]?.type : undefined;
  const types = options.index.types(name);
  if (types !== undefined) {
    const mine = options.replace ? options.groups.get(options.key)?.families.get(name) : undefined;
    for (const [type, count] of types) if (count - (mine?.type === type ? 1 : 0) > 0) return type;
  }
  return options.own().find((f) => f.name === name)?.type;
}

/**
 * The other group whose push-time series carry this group's labels: the same grouping labels with `instance=""`
 * given or left out (sanitizeLabels adds `instance=""` to a group without one).
 */
export function timeTwin(groups: ReadonlyMap<string, Group>, labels: GroupingLabels): Group | undefined {
  if (!Object.hasOwn(labels, "instance")) return groups.get(groupKey({ ...labels, instance: "" }));
  if (labels.instance !== "") return undefined;
  const { instance: _, ...rest } = labels;
  return groups.get(groupKey(rest));
}

/** A twin's push-time series and this group's are each collected twice (upstream gathers both groups). */
export function twinErrors(labels: GroupingLabels): string[] {
  const series = sanitize(
    { name: PUSH_TIME, help: undefined, type: "gauge", metrics: [{ labels: [] }] },
    labels,
  );
  const metric = { labels: series.metrics[0]?.labels ?? [], value: 0 };
  return [FAILURE_TIME, PUSH_TIME].map((name) => collectedBefore({ name, type: "gauge" }, metric));
}
