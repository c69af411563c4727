import { addFamily } from "../aggregate/add-family.js";
import { AggregationError } from "../errors.js";
import type { MetricFamily } from "../exposition/metric-family.js";
import {
  type KeyedFamily,
  mergeFamilies,
  parseRenderedFamily,
  type RenderedFamily,
  renderFamily,
  storedForm,
} from "../exposition/rendered-family.js";
import { parseGroupSelector, selectorMatches } from "../group-selector.js";
import { type GroupingLabels, groupKey } from "../grouping-key.js";
import { againstOthers, type HeldGroups, pushErrors, timeTwin, twinErrors } from "./against-others.js";
import {
  type AddedInfBuckets,
  multiError,
  type PushInvalidity,
  pushedSeries,
  pushInvalidity,
} from "./consistency-check.js";
import { GroupingNameSets } from "./grouping-name-sets.js";
import { findInconsistency } from "./inconsistency.js";
import {
  type AggregateRequest,
  FAILURE_TIME,
  FAILURE_TIME_HELP,
  type Group,
  lastPushMs,
  type MetricStore,
  type PersistedGroup,
  PUSH_TIME,
  PUSH_TIME_HELP,
  type PushRejection,
  type PushRequest,
} from "./metric-store.js";
import { type PreparedPush, preparePush, sanitize } from "./prepared-push.js";
import { SeriesIndex } from "./series-index.js";

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
 * (upstream re-gathers everything on every push: storage/diskmetricstore.go checkWriteRequest).
 */
export class MemoryStore implements MetricStore {
  #groups = new Map<string, Group>();
  /** Bumped by every change; what {@link families} last returned, and for which version. */
  #version = 0;
  #merged: { readonly version: number; readonly families: RenderedFamily[] } | undefined;
  /** What the groups hold, by family and series: the consistency check's lookups and the series limit's count. */
  readonly #index = new SeriesIndex();
  /** The sets of grouping label names in use: which groups the check looks in for a pushed series. */
  readonly #nameSets = new GroupingNameSets();
  /** {@link inconsistency}'s answer, and for which version. */
  #problem: { readonly version: number; readonly problem: string | undefined } | undefined;
  #own: OwnFamilies;
  #ttlMs: number;
  #maxGroups: number;
  #maxSeries: number;
  #now: () => number;
  #utf8Names: boolean;
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

  /** The state-free verdict on a push ({@link pushInvalidity}) under this store's own families and flags. */
  invalidity(prepared: PreparedPush, options: { check: boolean }): PushInvalidity | undefined {
    return pushInvalidity(prepared, {
      check: options.check,
      own: options.check ? this.#own() : [],
      utf8Names: this.#utf8Names,
    });
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
    // Refused or not, a push changes the group (its push or failure time).
    this.#version++;
    this.#expire(request.now.getTime());
    const rendered = request.families;
    let group = this.#groups.get(key);
    const twin = request.check ? timeTwin(this.#groups, request.labels) : undefined;
    const error = this.#check(rendered, { ...request, ...options, key, twin });
    if (error !== undefined) {
      // Upstream creates the refused group even beside its twin, and from then on fails every scrape and push for
      // the duplicate push-time series: not copied, the twin's refusal leaves no group.
      if (group === undefined && twin === undefined) group = this.#newGroup(key, request.labels);
      if (group !== undefined) group.failureTime = nowSeconds;
      return { kind: "inconsistent", message: error };
    }
    const limit = this.#checkLimits(rendered, { group, replace: request.replace });
    if (limit !== undefined) {
      // A new group is not created here: that would get round the group limit.
      if (group !== undefined) group.failureTime = nowSeconds;
      return { kind: "limit", message: limit };
    }
    if (group === undefined) group = this.#newGroup(key, request.labels);
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
      // Stored without the series keys (rendered-family.ts): the push's keys die young.
      const stored = storedForm(family);
      this.#index.reindex({ old, family: stored });
      group.families.set(family.name, stored);
      group.pushedAt.set(family.name, request.now.getTime());
    }
    for (const f of replaced?.values() ?? []) this.#index.unindex(f);
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
    this.#version++;
    this.#groups.clear();
    this.#index.clear();
    this.#nameSets.clear();
  }

  /** Series held by all groups (the limit's measure; the timestamp gauges are not counted). */
  seriesCount(): number {
    return this.#index.count;
  }

  families(): RenderedFamily[] {
    this.#expire(this.#now());
    // Unchanged since the last read: the same merged families, so concurrent scrapes of a large store share one
    // merge and one exposition order (rendered-family.ts expositionOrder) instead of each holding its own.
    if (this.#merged?.version === this.#version) return this.#merged.families;
    const all: RenderedFamily[] = [];
    for (const group of this.#groups.values()) {
      for (const f of group.families.values()) all.push(f);
      all.push(...this.#timeFamilies(group));
    }
    const families = mergeFamilies(all);
    this.#merged = { version: this.#version, families };
    return families;
  }

  /** With the consistency check off, the first problem a gather would fail on (inconsistency.ts), if any. */
  inconsistency(): string | undefined {
    if (this.#problem?.version !== this.#version)
      this.#problem = {
        version: this.#version,
        problem: findInconsistency(this.#groups.values(), this.#index),
      };
    return this.#problem.problem;
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
    this.#version++;
    for (const g of groups) {
      const key = groupKey(g.labels);
      this.#remove(key);
      const group: Group = {
        labels: g.labels,
        families: new Map([
          ...g.families.map((f) => [f.name, storedForm(renderFamily(f))] as const),
          ...(g.rendered ?? []).map((f) => [f.name, storedForm(f)] as const),
        ]),
        pushedAt: new Map(Object.entries(g.pushedAt)),
        pushTime: g.pushTime,
        failureTime: g.failureTime,
      };
      this.#groups.set(key, group);
      this.#nameSets.add(group.labels);
      for (const f of group.families.values()) this.#index.index(f);
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
    families: readonly KeyedFamily[],
    options: {
      key: string;
      labels: GroupingLabels;
      check: boolean;
      replace?: boolean | undefined;
      twin?: Group | undefined;
      invalid: PushInvalidity | undefined;
      sanitized?: readonly MetricFamily[] | undefined;
      addedInf?: AddedInfBuckets | undefined;
    },
  ): string | undefined {
    const { invalid, sanitized, addedInf } = options;
    // A series without its type's value message is quoted from its lines as a replica of the shared store quotes it
    // (it holds only the lines), so one push is worded alike by every store.
    const series = (family: number, f: KeyedFamily, i: number) => {
      const held = sanitized?.[family]?.metrics[i];
      return held !== undefined && held.valueMissing !== true
        ? held
        : pushedSeries(f, i, { addedInf: addedInf?.[family]?.includes(i) === true });
    };
    // A verdict without its errors apart (timestamps, or logged by an older replica) is the answer at its family.
    if (invalid !== undefined && invalid.errors === undefined) {
      for (const [family, f] of families.entries()) {
        if (invalid.family <= family) return invalid.message;
        const error = options.check
          ? againstOthers(f, { ...options, ...this.#held(), family, series })
          : undefined;
        if (error !== undefined) return error[0];
      }
      return invalid.message;
    }
    const errors = pushErrors(families, { ...options, ...this.#held(), own: () => this.#own(), series });
    if (options.twin !== undefined) errors.unshift(...twinErrors(options.labels));
    return errors.length === 0 ? undefined : multiError(errors);
  }

  /** What {@link againstOthers} looks other groups up in. */
  #held(): HeldGroups {
    return { groups: this.#groups, index: this.#index, nameSets: this.#nameSets };
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
      for (const f of group.families.values()) delta -= f.lines.length;
    }
    for (const f of families) {
      delta += f.lines.length;
      if (group !== undefined && !options.replace) delta -= group.families.get(f.name)?.lines.length ?? 0;
    }
    const count = this.#index.count;
    if (delta > 0 && count + delta > this.#maxSeries) {
      return `push refused: it would raise the gateway's series from ${count} to ${count + delta}, over the limit of ${this.#maxSeries} set by --push.max-series; delete groups or raise the limit`;
    }
    return undefined;
  }

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

  /**
   * Beyond upstream (upstream issue #19, never accepted): drops groups whose last successful push is older than the
   * TTL; a group that never had one counts from its failed push. Failed pushes do not keep stale data alive.
   */
  #expire(nowMs: number): void {
    if (this.#ttlMs <= 0) return;
    const cutoff = nowMs - this.#ttlMs;
    for (const [key, group] of this.#groups) {
      if (lastPushMs(group) < cutoff) this.#remove(key);
    }
  }

  #newGroup(key: string, labels: GroupingLabels): Group {
    const group: Group = { labels, families: new Map(), pushedAt: new Map(), pushTime: 0, failureTime: 0 };
    this.#groups.set(key, group);
    this.#nameSets.add(labels);
    return group;
  }

  #remove(key: string): void {
    const group = this.#groups.get(key);
    if (group === undefined) return;
    this.#version++;
    for (const f of group.families.values()) this.#index.unindex(f);
    this.#groups.delete(key);
    this.#nameSets.remove(group.labels);
  }
}

/** A push as {@link MemoryStore.pushRendered} takes it: rendered, with its state-free verdict. */
export interface RenderedPush extends Omit<PushRequest, "families"> {
  readonly families: readonly KeyedFamily[];
  readonly invalid: PushInvalidity | undefined;
}

/** A group's push or failure time gauge, labelled like its pushed series (the grouping labels, `instance`). */
function timeFamily(name: string, group: Group, value: number): RenderedFamily {
  const help = name === PUSH_TIME ? PUSH_TIME_HELP : FAILURE_TIME_HELP;
  return storedForm(
    renderFamily(sanitize({ name, help, type: "gauge", metrics: [{ labels: [], value }] }, group.labels)),
  );
}
