import { addFamily } from "../aggregate/add-family.js";
import { AggregationError } from "../errors.js";
import { formatGoFloat } from "../exposition/go-float.js";
import type { Metric, MetricFamily, MetricType } from "../exposition/metric-family.js";
import { isUtf8Name } from "../exposition/metric-names.js";
import {
  mergeFamilies,
  parseRenderedFamily,
  type RenderedFamily,
  renderFamily,
  seriesKey,
} from "../exposition/rendered-family.js";
import { parseGroupSelector, selectorMatches } from "../group-selector.js";
import { type GroupingLabels, groupKey, isLabelName } from "../grouping-key.js";
import type { PersistedGroup } from "./metric-store.js";
import {
  type AggregateRequest,
  FAILURE_TIME,
  FAILURE_TIME_HELP,
  type Group,
  lastPushMs,
  type MetricStore,
  PUSH_TIME,
  PUSH_TIME_HELP,
  type PushRejection,
  type PushRequest,
} from "./metric-store.js";

/** Families the gateway exposes itself; a push may not clash with their types. */
export type OwnFamilies = () => readonly MetricFamily[];

/** Options of the store; the limits and the TTL are beyond upstream and off (0) by default. */
export interface MemoryStoreOptions {
  readonly own?: OwnFamilies;
  /** Drop a group this many milliseconds after its last successful push (0 = never). */
  readonly groupTtlMs?: number;
  /** Refuse a push that would create a group beyond this many (0 = unlimited). */
  readonly maxGroups?: number;
  /** Refuse a push that would make the store hold more series than this (0 = unlimited). */
  readonly maxSeries?: number;
  /** The clock for expiry on reads, milliseconds since the epoch. */
  readonly now?: () => number;
  /** `--push.enable-utf8-names`: label names are judged by UTF-8 validation. */
  readonly utf8Names?: boolean;
}

/**
 * The in-memory store. The consistency check looks only at the families a push names (and the gateway's own
 * families of those names), so its cost grows with the size of those families, not with the whole store
 * (upstream re-gathers everything on every push, research §14).
 */
export class MemoryStore implements MetricStore {
  #groups = new Map<string, Group>();
  /**
   * Family name → series id → the group holding it, and family name → type → how many groups hold it with that
   * type: the consistency check looks up each pushed series instead of scanning other groups.
   */
  #series = new Map<string, Map<string, string>>();
  #types = new Map<string, Map<MetricType, number>>();
  /** Family name → series held by all groups, which exceeds the index's size only when groups share a series. */
  #familySeries = new Map<string, number>();
  #own: OwnFamilies;
  #ttlMs: number;
  #maxGroups: number;
  #maxSeries: number;
  #now: () => number;
  #utf8Names: boolean;
  /** Series held by all groups (pushed families only), kept current so the series limit costs nothing. */
  #seriesCount = 0;
  /** Each group's timestamp gauges as last rendered, with the times they show. */
  #renderedTimes = new WeakMap<
    Group,
    { pushTime: number; failureTime: number; families: readonly [RenderedFamily, RenderedFamily] }
  >();

  constructor(options: MemoryStoreOptions = {}) {
    this.#own = options.own ?? (() => []);
    this.#ttlMs = options.groupTtlMs ?? 0;
    this.#maxGroups = options.maxGroups ?? 0;
    this.#maxSeries = options.maxSeries ?? 0;
    this.#now = options.now ?? Date.now;
    this.#utf8Names = options.utf8Names ?? false;
  }

  /** Applies a push: {@link preparePush}, {@link invalidity}, then {@link pushRendered}. */
  push(request: PushRequest): PushRejection | undefined {
    const prepared = preparePush(request);
    return this.pushRendered(
      {
        ...request,
        families: prepared.rendered,
        invalid: this.invalidity(prepared, { check: request.check }),
      },
      { sanitized: prepared.sanitized },
    );
  }

  /**
   * The state-free half of upstream's `checkWriteRequest`: timestamps, label names, a series twice in one family, a
   * type clash with the gateway's own families. It depends only on the push and the gateway's flags, so the replica
   * that takes a push can judge it once and log the verdict (redis-store.ts) instead of every replica judging again.
   */
  invalidity(prepared: PreparedPush, options: { check: boolean }): PushInvalidity | undefined {
    const { sanitized, rendered } = prepared;
    for (const f of sanitized) {
      if (f.metrics.some((m) => m.timestampMs !== undefined))
        return { family: 0, message: "pushed metrics must not have timestamps" };
    }
    if (!options.check) return undefined;
    const own = new Map(this.#own().map((f) => [f.name, f]));
    for (const [family, f] of sanitized.entries()) {
      const ownFamily = own.get(f.name);
      if (ownFamily !== undefined && ownFamily.type !== f.type) {
        return {
          family,
          message: `gathered metric family ${f.name} has type ${f.type.toUpperCase()} but should have ${ownFamily.type.toUpperCase()}`,
        };
      }
      const keys = rendered[family]?.keys ?? [];
      const seen = new Set<string>();
      for (const [i, m] of f.metrics.entries()) {
        // Under UTF-8 validation (`--push.enable-utf8-names`) any non-empty UTF-8 name is valid, `__` still reserved.
        const bad = m.labels.find(([k]) =>
          this.#utf8Names ? !isUtf8Name(k) || k.startsWith("__") : !isLabelName(k),
        );
        if (bad)
          return {
            family,
            message: `collected metric "${f.name}" { ${describe(f.type, m)}} has a label with an invalid name: ${bad[0]}`,
          };
        const id = keys[i] ?? seriesKey(m);
        if (seen.has(id))
          return {
            family,
            message: `collected metric "${f.name}" { ${describe(f.type, m)}} was collected before with the same name and label values`,
          };
        seen.add(id);
      }
    }
    return undefined;
  }

  /**
   * Applies a push already rendered and judged by {@link invalidity}: the part that depends on the store (the
   * checks against other groups, the limits, storing and indexing). Error texts quote the pushed series: from
   * `sanitized` when the caller still holds it, else parsed back from the lines, without the `+Inf` buckets that
   * rendering added (`addedInf`, see {@link addedInfBuckets}).
   */
  pushRendered(
    request: RenderedPush,
    options: { sanitized?: readonly MetricFamily[]; addedInf?: AddedInfBuckets } = {},
  ): PushRejection | undefined {
    const key = groupKey(request.labels);
    const nowSeconds = request.now.getTime() / 1000;
    this.#expire(request.now.getTime());
    const rendered = request.families;
    let group = this.#groups.get(key);
    const error = this.#check(rendered, { ...request, ...options, key });
    if (error !== undefined) {
      if (group === undefined) {
        group = newGroup(request.labels);
        this.#groups.set(key, group);
      }
      group.failureTime = nowSeconds;
      return { kind: "inconsistent", message: error };
    }
    const limit = this.#checkLimits(rendered, { group, replace: request.replace });
    if (limit !== undefined) {
      // A new group is not created here: that would get round the group limit.
      if (group !== undefined) group.failureTime = nowSeconds;
      return { kind: "limit", message: limit };
    }
    if (group === undefined) {
      group = newGroup(request.labels);
      this.#groups.set(key, group);
    }
    // PUT: the group's families not pushed again leave the index after the loop; those pushed again are re-indexed
    // against their previous version (#reindex), in push order as before.
    let replaced: Map<string, RenderedFamily> | undefined;
    if (request.replace) {
      replaced = new Map(group.families);
      group.families.clear();
      group.pushedAt.clear();
    }
    for (const family of rendered) {
      if (family.name === PUSH_TIME || family.name === FAILURE_TIME) continue;
      const old = replaced?.get(family.name) ?? group.families.get(family.name);
      replaced?.delete(family.name);
      group.families.set(family.name, this.#reindex(key, { old, family }));
      group.pushedAt.set(family.name, request.now.getTime());
    }
    for (const f of replaced?.values() ?? []) this.#unindex(key, f);
    group.pushTime = nowSeconds;
    return undefined;
  }

  delete(labels: GroupingLabels): void {
    this.#remove(groupKey(labels));
  }

  /**
   * Adds a push into its group (aggregate/add-family.ts) and stores the sums as a POST stores families, through the
   * same checks; the state-free checks judge the push as sent. A type or bucket layout that does not fit changes
   * nothing. Every store applies aggregating pushes through this (the shared one in log order).
   */
  aggregate(request: AggregateRequest): PushRejection | undefined {
    const prepared = preparePush(request);
    // A push the state-free checks refuse (timestamps, label names, a series twice) fails as a push fails.
    const invalid = this.invalidity(prepared, { check: request.check });
    if (invalid !== undefined)
      return this.pushRendered(
        { ...request, replace: false, families: prepared.rendered, invalid },
        { sanitized: prepared.sanitized },
      );
    const group = this.#groups.get(groupKey(request.labels));
    let added: MetricFamily[];
    try {
      added = prepared.sanitized.map((pushed) => {
        const held = group?.families.get(pushed.name);
        const parsed = held === undefined ? undefined : parseRenderedFamily(held);
        return addFamily(parsed, pushed, { gauges: request.gauges });
      });
    } catch (error) {
      if (error instanceof AggregationError) return { kind: "aggregation", message: error.message };
      throw error;
    }
    return this.pushRendered(
      { ...request, replace: false, families: added.map(renderFamily), invalid: undefined },
      { sanitized: added },
    );
  }

  /** Deletes the groups one of the `match[]` selectors selects; returns their grouping labels. */
  deleteMatching(match: readonly string[]): GroupingLabels[] {
    const selectors = match.map(parseGroupSelector);
    const deleted = this.groups()
      .filter((g) => selectors.some((s) => selectorMatches(g.labels, s)))
      .map((g) => g.labels);
    for (const labels of deleted) this.delete(labels);
    return deleted;
  }

  wipe(): void {
    this.#groups.clear();
    this.#series.clear();
    this.#types.clear();
    this.#familySeries.clear();
    this.#seriesCount = 0;
  }

  /** Series held by all groups (the limit's measure; the timestamp gauges are not counted). */
  seriesCount(): number {
    return this.#seriesCount;
  }

  families(): RenderedFamily[] {
    this.#expire(this.#now());
    const all: RenderedFamily[] = [];
    for (const group of this.#groups.values()) {
      for (const f of group.families.values()) all.push(f);
      all.push(...this.#timeFamilies(group));
    }
    return mergeFamilies(all);
  }

  /**
   * With the consistency check off (`--push.disable-consistency-check`) the store can hold what a gather rejects;
   * upstream then fails every scrape with the gatherer's error (research §4). This finds the first such problem: a
   * family held with two types, or a series held by two groups.
   */
  inconsistency(): string | undefined {
    for (const [name, types] of this.#types) {
      if (types.size < 2) continue;
      const [first] = types.keys();
      for (const group of this.#groups.values()) {
        const f = group.families.get(name);
        if (f === undefined || f.type === first || f.lines.length === 0) continue;
        return `collected metric "${name}" { ${describe(f.type, seriesAt(f, 0))}} is not a ${String(first).toUpperCase()}`;
      }
    }
    for (const [name, total] of this.#familySeries) {
      if (total <= (this.#series.get(name)?.size ?? 0)) continue;
      const seen = new Set<string>();
      for (const group of this.#groups.values()) {
        const f = group.families.get(name);
        if (f === undefined) continue;
        for (const [i, id] of f.keys.entries()) {
          if (!seen.has(id)) {
            seen.add(id);
            continue;
          }
          return `collected metric "${name}" { ${describe(f.type, seriesAt(f, i))}} was collected before with the same name and label values`;
        }
      }
    }
    return undefined;
  }

  groups(): Group[] {
    this.#expire(this.#now());
    return [...this.#groups.values()];
  }

  /** The group under `key` ({@link groupKey}), expired or not. */
  group(key: string): Group | undefined {
    return this.#groups.get(key);
  }

  /**
   * Drops the group of `labels` when its last successful push (without one, its failed push) is not after
   * `cutoffMs`: the shared store's expiry (redis-store.ts), decided from times every replica holds alike.
   * Returns when the group, kept, was last pushed (ms); undefined when it was dropped or absent.
   */
  expireIdle(labels: GroupingLabels, cutoffMs: number): number | undefined {
    const key = groupKey(labels);
    const group = this.#groups.get(key);
    if (group === undefined) return undefined;
    const lastMs = lastPushMs(group);
    if (lastMs > cutoffMs) return lastMs;
    this.#remove(key);
    return undefined;
  }

  /** Restores groups read from the persistence file (trusted: the gateway wrote them). */
  restore(groups: readonly PersistedGroup[]): void {
    for (const g of groups) {
      const key = groupKey(g.labels);
      const group: Group = {
        labels: g.labels,
        families: new Map(g.families.map((f) => [f.name, renderFamily(f)])),
        pushedAt: new Map(Object.entries(g.pushedAt)),
        pushTime: g.pushTime,
        failureTime: g.failureTime,
      };
      this.#groups.set(key, group);
      for (const f of group.families.values()) this.#index(key, f);
    }
  }

  /** The groups in the persistence file's shape. */
  snapshot(): PersistedGroup[] {
    return [...this.#groups.values()].map((g) => ({
      labels: g.labels,
      pushTime: g.pushTime,
      failureTime: g.failureTime,
      pushedAt: Object.fromEntries(g.pushedAt),
      families: [...g.families.values()].map(parseRenderedFamily),
    }));
  }

  /**
   * Upstream's `checkWriteRequest`, limited to what the push touches: per family, in push order, the state-free
   * verdict ({@link invalidity}) first, then the family's type and series against other groups (by series key).
   */
  #check(
    families: readonly RenderedFamily[],
    options: {
      key: string;
      check: boolean;
      invalid: PushInvalidity | undefined;
      sanitized?: readonly MetricFamily[] | undefined;
      addedInf?: AddedInfBuckets | undefined;
    },
  ): string | undefined {
    const { invalid, sanitized, addedInf } = options;
    const series = (family: number, f: RenderedFamily, i: number) =>
      sanitized?.[family]?.metrics[i] ??
      pushedSeries(f, i, { addedInf: addedInf?.[family]?.includes(i) === true });
    for (const [family, f] of families.entries()) {
      if (invalid !== undefined && invalid.family <= family) return invalid.message;
      if (!options.check) continue;
      // Another group holding the family with another type (the pushing group's own family is being replaced).
      const mine = this.#groups.get(options.key)?.families.get(f.name);
      for (const [type, count] of this.#types.get(f.name) ?? []) {
        if (type !== f.type && count - (mine?.type === type ? 1 : 0) > 0)
          return `collected metric "${f.name}" { ${describe(f.type, series(family, f, 0))}} is not a ${type.toUpperCase()}`;
      }
      const held = this.#series.get(f.name);
      if (held === undefined) continue;
      // The group's own series again: in a family no two groups share a series of, each is held by this group.
      if (mine !== undefined && this.#repeats(mine, f)) continue;
      for (const [i, id] of f.keys.entries()) {
        const holder = held.get(id);
        if (holder !== undefined && holder !== options.key)
          return `collected metric "${f.name}" { ${describe(f.type, series(family, f, i))}} was collected before with the same name and label values`;
      }
    }
    return invalid?.message;
  }

  /** Beyond upstream: the opt-in group and series limits, checked against the push's net effect. */
  #checkLimits(
    families: readonly RenderedFamily[],
    options: { group: Group | undefined; replace: boolean },
  ): string | undefined {
    const { group } = options;
    if (group === undefined && this.#maxGroups > 0 && this.#groups.size >= this.#maxGroups) {
      return `push refused: the gateway already holds ${this.#groups.size} groups, the limit set by --push.max-groups; delete groups or raise the limit`;
    }
    if (this.#maxSeries <= 0) return undefined;
    let delta = 0;
    if (group !== undefined && options.replace) {
      for (const f of group.families.values()) delta -= f.keys.length;
    }
    for (const f of families) {
      delta += f.keys.length;
      if (group !== undefined && !options.replace) delta -= group.families.get(f.name)?.keys.length ?? 0;
    }
    if (delta > 0 && this.#seriesCount + delta > this.#maxSeries) {
      return `push refused: it would raise the gateway's series from ${this.#seriesCount} to ${this.#seriesCount + delta}, over the limit of ${this.#maxSeries} set by --push.max-series; delete groups or raise the limit`;
    }
    return undefined;
  }

  /**
   * Beyond upstream (upstream issue #19, never accepted): drops groups whose last successful push is older than the
   * TTL; a group that never had one counts from its failed push. Failed pushes do not keep stale data alive.
   */
  /**
   * The group's two timestamp gauges, rendered again only when a time changed: rendering them was a third of a
   * scrape's work (bench/pushgateway, 20 groups: 0.5 ms of 1.6).
   */
  #timeFamilies(group: Group): readonly [RenderedFamily, RenderedFamily] {
    const cached = this.#renderedTimes.get(group);
    if (cached?.pushTime === group.pushTime && cached.failureTime === group.failureTime)
      return cached.families;
    const families = [
      timeFamily(PUSH_TIME, group, group.pushTime),
      timeFamily(FAILURE_TIME, group, group.failureTime),
    ] as const;
    this.#renderedTimes.set(group, { pushTime: group.pushTime, failureTime: group.failureTime, families });
    return families;
  }

  #expire(nowMs: number): void {
    if (this.#ttlMs <= 0) return;
    const cutoff = nowMs - this.#ttlMs;
    for (const [key, group] of this.#groups) {
      if (lastPushMs(group) < cutoff) this.#remove(key);
    }
  }

  #remove(key: string): void {
    const group = this.#groups.get(key);
    if (group === undefined) return;
    for (const f of group.families.values()) this.#unindex(key, f);
    this.#groups.delete(key);
  }

  /**
   * Indexes `family` in place of `old`, the group's previous family of that name, and returns what to store. A push
   * repeating the group's series (the usual periodic push: new values, same labels) keeps the stored key strings and
   * leaves the index as it is: no Map operation per series, and the new key strings die young instead of being kept
   * (a repeated 100-series push into 100k series applied in 16 µs instead of 80-120, bench/pushgateway/README.md).
   */
  #reindex(
    key: string,
    options: { old: RenderedFamily | undefined; family: RenderedFamily },
  ): RenderedFamily {
    const { old, family } = options;
    if (old !== undefined && this.#repeats(old, family)) return { ...family, keys: old.keys };
    if (old !== undefined) this.#unindex(key, old);
    this.#index(key, family);
    return family;
  }

  /**
   * Whether `family` has the same type and series keys, in the same order, as `old`, a group's stored family, in a
   * family no two groups share a series of. When every group's series are distinct, the index holds exactly one entry
   * per stored series, each naming its group (index entries only ever name a group that holds the series): so
   * `old`'s series are all indexed under its group. With the check disabled a series can be held twice; the counts
   * then differ and every series is looked up as before.
   */
  #repeats(old: RenderedFamily, family: RenderedFamily): boolean {
    if (old.type !== family.type || old.keys.length !== family.keys.length) return false;
    if ((this.#familySeries.get(family.name) ?? 0) !== (this.#series.get(family.name)?.size ?? 0))
      return false;
    for (let i = 0; i < old.keys.length; i++) if (old.keys[i] !== family.keys[i]) return false;
    return true;
  }

  #index(key: string, family: RenderedFamily): void {
    this.#seriesCount += family.keys.length;
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

  #unindex(key: string, family: RenderedFamily): void {
    this.#seriesCount -= family.keys.length;
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

function newGroup(labels: GroupingLabels): Group {
  return { labels, families: new Map(), pushedAt: new Map(), pushTime: 0, failureTime: 0 };
}

/** The part of a push that does not depend on the store: see {@link preparePush}. */
export interface PreparedPush {
  /** The pushed families with the grouping labels (and an empty `instance`) applied, labels sorted. */
  readonly sanitized: readonly MetricFamily[];
  /** The same, rendered: the store keeps only lines and keys, and a scrape sorts and joins. */
  readonly rendered: readonly RenderedFamily[];
}

/**
 * Where a push fails the state-free checks ({@link MemoryStore.invalidity}): the index of the family at which the
 * check stopped (the checks against other groups still run for the families before it, so the first error found is
 * the one a single pass finds) and the error text.
 */
export interface PushInvalidity {
  readonly family: number;
  readonly message: string;
}

/** A push as {@link MemoryStore.pushRendered} takes it: rendered, with its state-free verdict. */
export interface RenderedPush extends Omit<PushRequest, "families"> {
  readonly families: readonly RenderedFamily[];
  readonly invalid: PushInvalidity | undefined;
}

/** Applies the grouping labels to a push's families and renders their lines; pure, so it can run ahead. */
export function preparePush(request: Pick<PushRequest, "labels" | "families">): PreparedPush {
  const sanitized = request.families.map((f) => sanitize(f, request.labels));
  return { sanitized, rendered: sanitized.map(renderFamily) };
}

/** Grouping labels override and complete every series' labels; `instance=""` when absent; sorted (research §4). */
function sanitize(family: MetricFamily, grouping: GroupingLabels): MetricFamily {
  const groupingPairs = Object.entries(grouping);
  const withInstance = "instance" in grouping ? groupingPairs : [...groupingPairs, ["instance", ""]];
  return {
    ...family,
    metrics: family.metrics.map((m) => {
      // A plain loop over a handful of labels: this runs for every pushed series (a Map per series cost more).
      const labels: [string, string][] = [];
      let instance = false;
      for (const pair of m.labels) {
        if (Object.hasOwn(grouping, pair[0])) continue;
        if (pair[0] === "instance") instance = true;
        // A name given twice (protobuf allows it) keeps its last value, as a Map would.
        const same = labels.findIndex(([k]) => k === pair[0]);
        if (same < 0) labels.push(pair);
        else labels[same] = pair;
      }
      for (const pair of instance ? groupingPairs : withInstance) labels.push(pair as [string, string]);
      return { ...m, labels: labels.sort(byName) };
    }),
  };
}

function byName([a]: [string, string], [b]: [string, string]): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A group's push or failure time gauge, labelled like its pushed series (the grouping labels, `instance`). */
function timeFamily(name: string, group: Group, value: number): RenderedFamily {
  const help = name === PUSH_TIME ? PUSH_TIME_HELP : FAILURE_TIME_HELP;
  return renderFamily(
    sanitize({ name, help, type: "gauge", metrics: [{ labels: [], value }] }, group.labels),
  );
}

/** One stored series back in structured form (only an error text needs it). */
function seriesAt(f: RenderedFamily, i: number): Metric | undefined {
  return parseRenderedFamily({ ...f, lines: [f.lines[i] ?? ""] }).metrics[0];
}

/** A series as pushed, from its lines: {@link seriesAt} without the `+Inf` bucket rendering added, if it did. */
function pushedSeries(f: RenderedFamily, i: number, options: { addedInf: boolean }): Metric | undefined {
  const m = seriesAt(f, i);
  if (m === undefined || !options.addedInf || m.buckets === undefined) return m;
  return { ...m, buckets: m.buckets.slice(0, -1) };
}

/**
 * Per family of a prepared push, the series whose `+Inf` bucket rendering added (histograms pushed without one, as
 * client_golang's protobuf sends them), or undefined when none: what {@link MemoryStore.pushRendered} needs to quote
 * such a series as pushed after the structured form is gone. The shared store keeps this instead of the structured
 * families while its append is in flight: structured objects held across the round trip survive young-generation
 * collections and cost the replica about a sixth of its CPU under concurrent pushes (bench/pushgateway/README.md).
 */
export type AddedInfBuckets = readonly (readonly number[] | undefined)[];

/** {@link AddedInfBuckets} of a push's sanitized families. */
export function addedInfBuckets(sanitized: readonly MetricFamily[]): AddedInfBuckets {
  return sanitized.map((f) => {
    if (f.type !== "histogram") return undefined;
    const added: number[] = [];
    for (const [i, m] of f.metrics.entries()) {
      if (!(m.buckets ?? []).some(([le]) => le === Number.POSITIVE_INFINITY)) added.push(i);
    }
    return added.length === 0 ? undefined : added;
  });
}

/**
 * The series as client_golang's error texts print it: the protobuf text form of the `Metric` message (fields in
 * number order, Go's shortest float formatting), e.g. `label:{name:"job" value:"j"} gauge:{value:1}`.
 */
function describe(type: MetricType, m: Metric | undefined): string {
  if (m === undefined) return "";
  const f = (v: number) =>
    Number.isNaN(v)
      ? "nan"
      : v === Number.POSITIVE_INFINITY
        ? "inf"
        : v === Number.NEGATIVE_INFINITY
          ? "-inf"
          : formatGoFloat(v);
  const parts = m.labels.map(([k, v]) => `label:{name:${JSON.stringify(k)} value:${JSON.stringify(v)}}`);
  if (type === "summary") {
    const q = (m.quantiles ?? []).map(([qq, v]) => ` quantile:{quantile:${f(qq)} value:${f(v)}}`).join("");
    parts.push(`summary:{sample_count:${m.count ?? 0} sample_sum:${f(m.sum ?? 0)}${q}}`);
  } else if (type === "histogram") {
    const b = (m.buckets ?? [])
      .map(([le, c]) => ` bucket:{cumulative_count:${c} upper_bound:${f(le)}}`)
      .join("");
    parts.push(`histogram:{sample_count:${m.count ?? 0} sample_sum:${f(m.sum ?? 0)}${b}}`);
  } else {
    parts.push(`${type}:{value:${f(m.value ?? 0)}}`);
  }
  return parts.join(" ");
}
