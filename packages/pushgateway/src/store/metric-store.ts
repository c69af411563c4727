import type { GaugeMode } from "../aggregate/add-family.js";
import type { MetricFamily } from "../exposition/metric-family.js";
import type { KeyedFamily, RenderedFamily } from "../exposition/rendered-family.js";
import type { GroupingLabels } from "../grouping-key.js";

/** The two gauges every group carries (upstream storage/interface.go), exposed and listed by the API alike. */
export const PUSH_TIME = "push_time_seconds";
export const FAILURE_TIME = "push_failure_time_seconds";
export const PUSH_TIME_HELP = "Last Unix time when changing this group in the Pushgateway succeeded.";
export const FAILURE_TIME_HELP = "Last Unix time when changing this group in the Pushgateway failed.";

/** One group as stored: its grouping labels, its families by name, and the push timestamps. */
export interface Group {
  readonly labels: GroupingLabels;
  /** Family name → family, grouping labels already applied to every series, rendered (columnar). */
  readonly families: Map<string, RenderedFamily>;
  /** Family name → when it was last pushed (milliseconds), for the API's `time_stamp`. */
  readonly pushedAt: Map<string, number>;
  /** Last successful change, seconds since the epoch (0 when none yet). */
  pushTime: number;
  /** Last failed change, seconds since the epoch (0 when none). */
  failureTime: number;
}

/** One group as persisted (the persistence file, the Redis snapshot): structured families, times. */
export interface PersistedGroup {
  readonly labels: GroupingLabels;
  readonly pushTime: number;
  readonly failureTime: number;
  readonly pushedAt: Record<string, number>;
  readonly families: MetricFamily[];
  /** More families, already in the stored form (the persistence reader's fast path, disk/simple-families.ts). */
  readonly rendered?: readonly (RenderedFamily | KeyedFamily)[];
}

/** A push to apply. */
export interface PushRequest {
  readonly labels: GroupingLabels;
  readonly families: readonly MetricFamily[];
  /** PUT replaces the whole group; POST replaces only the families named in the push. */
  readonly replace: boolean;
  /** When the push arrived. */
  readonly now: Date;
  /** Run the consistency check (upstream default); off with `--push.disable-consistency-check`. */
  readonly check: boolean;
}

/**
 * Beyond upstream: a push added into its group (`<prefix>/aggregate/metrics/...`, aggregate/add-family.ts) rather
 * than replacing; PUT and POST alike.
 */
export interface AggregateRequest extends Omit<PushRequest, "replace"> {
  /** `--aggregate.gauges`: a gauge's pushed value replaces the held one, or adds to it. */
  readonly gauges: GaugeMode;
}

/**
 * Why a push was refused: upstream's consistency check (400), an opt-in limit (429, beyond upstream), or an
 * aggregating push that does not fit its group (400; unlike the others it changes nothing, not even the failure time).
 */
export interface PushRejection {
  readonly kind: "inconsistent" | "limit" | "aggregation";
  readonly message: string;
}

/**
 * The storage contract (after prometheus/pushgateway storage/interface.go):
 * - Writes are applied strictly in call order; `push` and `delete` are synchronous, so a caller that awaited one
 *   sees its effect in every later read.
 * - `push` either applies the whole request or nothing; on rejection only the group's failure time changes (and a
 *   new group is created holding just its two timestamp gauges), exactly as upstream.
 * - `families()` returns the merged view for exposition: same-named families of all groups concatenated, first
 *   family's HELP/TYPE kept. The returned objects are owned by the store and must not be mutated by the caller.
 * - `groups()` is for the API and UI; the same ownership rule applies.
 * - Beyond upstream, opt-in: groups older than a TTL vanish before any read or push; limits refuse a push whole.
 */
export interface MetricStore {
  /**
   * Applies a push; returns the reason when the push is rejected. A shared store (Redis) answers asynchronously and
   * may throw `StoreUnavailableError` when it cannot take or confirm the change.
   */
  push(request: PushRequest): PushRejection | undefined | Promise<PushRejection | undefined>;
  /** Deletes the group with exactly these grouping labels (no-op when absent). */
  delete(labels: GroupingLabels): void | Promise<void>;
  /** Deletes every group (admin wipe). */
  wipe(): void | Promise<void>;
  /**
   * Beyond upstream: adds a push into its group, judged against the group as it is when applied (so concurrent and
   * replicated aggregating pushes lose no update); a type or bucket layout that does not fit changes nothing.
   */
  aggregate(request: AggregateRequest): PushRejection | undefined | Promise<PushRejection | undefined>;
  /**
   * Beyond upstream: deletes every group that one of `match` (`match[]` selectors, already validated by
   * group-selector.ts) selects, decided when applied; returns their grouping labels.
   */
  deleteMatching(match: readonly string[]): GroupingLabels[] | Promise<GroupingLabels[]>;
  /** A shared store brings its cache up to date before a read (never throws: a stale cache is served). */
  refresh?(): Promise<void>;
  /** A shared store: why this replica cannot serve writes now (for `/-/ready`), or undefined when it can. */
  notReady?(): Promise<string | undefined>;
  families(): RenderedFamily[];
  /** What makes a gather fail (only possible with the consistency check off), or undefined. */
  inconsistency(): string | undefined;
  groups(): Group[];
}

/** What a group's TTL counts from (ms): its last successful push, or its failed push when it never had one. */
export function lastPushMs(group: Group): number {
  return (group.pushTime > 0 ? group.pushTime : group.failureTime) * 1000;
}
