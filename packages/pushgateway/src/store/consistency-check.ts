import { formatGoFloat } from "../exposition/go-float.js";
import { goQuoteLossless, hasInvalidUtf8 } from "../exposition/lossless-utf8.js";
import type { Metric, MetricFamily, MetricType } from "../exposition/metric-family.js";
import { isUtf8Name } from "../exposition/metric-names.js";
import { parseRenderedFamily, type RenderedFamily, seriesKey } from "../exposition/rendered-family.js";
import { type GroupingLabels, isLabelName } from "../grouping-key.js";
import { FAILURE_TIME, FAILURE_TIME_HELP, PUSH_TIME, PUSH_TIME_HELP } from "./metric-store.js";
import { type PreparedPush, sanitize } from "./prepared-push.js";

// Upstream's consistency check (storage/diskmetricstore.go checkWriteRequest, client_golang's Gather): the verdicts
// that depend only on the push, and the error texts client_golang prints, which quote a series as pushed.

/**
 * Where a push fails the state-free checks ({@link MemoryStore.invalidity}): the index of the family at which the
 * check stopped (the checks against other groups still run for the families before it, so the first error found is
 * the one a single pass finds) and the error text.
 */
export interface PushInvalidity {
  readonly family: number;
  readonly message: string;
  /**
   * Each error apart, where the family (and the series, unless the whole family was skipped) is known, so that the
   * store can add the errors against other groups in client_golang's order. Absent for a verdict made before any
   * gathering (timestamps), or logged by a replica that did not write it: then `message` is the whole answer.
   */
  readonly errors?: readonly PushError[];
}

/** One error of a push: its family's index, its series' index (none: the family was skipped), the text. */
export interface PushError {
  readonly family: number;
  readonly series?: number;
  readonly message: string;
}

/**
 * The state-free half of upstream's `checkWriteRequest`: timestamps, label names, a series twice in one family, a
 * type clash with the gateway's own families (`own`). It depends only on the push and the gateway's flags, so the
 * replica that takes a push can judge it once and log the verdict (redis/redis-store.ts) instead of every replica
 * judging again.
 */
export function pushInvalidity(
  prepared: PreparedPush,
  options: { check: boolean; own: readonly MetricFamily[]; utf8Names: boolean },
): PushInvalidity | undefined {
  const { sanitized, rendered } = prepared;
  for (const f of sanitized) {
    if (f.metrics.some((m) => m.timestampMs !== undefined))
      return { family: 0, message: "pushed metrics must not have timestamps" };
  }
  // A label value that is not UTF-8 or a label name given twice (a protobuf push; the text parser refuses both
  // itself) fails client_golang's Gather even unchecked, where upstream would then fail every scrape: refused here,
  // checked or not. Checked, the rest of client_golang's checkMetricConsistency runs too, in its order, per family
  // after the family's type was compared with the gateway's own family of that name (Gatherers.Gather).
  // Every error is kept, as client_golang's Gather goes on after one: a family whose type clashes is skipped, a
  // series that fails is not counted for duplicates (registry.go Gatherers.Gather, checkMetricConsistency).
  const own = new Map(options.check ? options.own.map((f) => [f.name, f]) : []);
  const errors: PushError[] = [];
  for (const [family, f] of sanitized.entries()) {
    // Upstream replaces a pushed push_time_seconds (and push_failure_time_seconds) with its own gauge before it
    // gathers (storage/diskmetricstore.go processWriteRequest): only the timestamps above are checked in them.
    if (f.name === PUSH_TIME || f.name === FAILURE_TIME) continue;
    const ownFamily = own.get(f.name);
    if (ownFamily !== undefined && ownFamily.type !== f.type) {
      errors.push({
        family,
        message: `gathered metric family ${f.name} has type ${f.type.toUpperCase()} but should have ${ownFamily.type.toUpperCase()}`,
      });
      continue;
    }
    const keys = rendered[family]?.keys ?? [];
    const seen = new Set<string>();
    for (const [i, m] of f.metrics.entries()) {
      const problem = seriesProblem(f, m, options);
      if (problem !== undefined) {
        errors.push({ family, series: i, message: problem });
        continue;
      }
      if (!options.check) continue;
      const id = keys[i] ?? seriesKey(m);
      if (seen.has(id)) errors.push({ family, series: i, message: collectedBefore(f, m) });
      seen.add(id);
    }
  }
  const first = errors[0];
  if (first === undefined) return undefined;
  return { family: first.family, message: multiError(errors.map((e) => e.message)), errors };
}

/** client_golang's MultiError text: one error as it is, more as `N error(s) occurred:` and a `* ` line each. */
export function multiError(errors: readonly string[]): string {
  if (errors.length === 1) return errors[0] ?? "";
  return `${errors.length} error(s) occurred:${errors.map((e) => `\n* ${e}`).join("")}`;
}

/**
 * client_golang's checkMetricConsistency (registry.go) on one series, in its order: the value message of the family's
 * type, then per label pair (sorted) a name equal to the previous one (the first compared with "", so an empty name
 * reads as a duplicate), an invalid name, `quantile` on a summary, a value that is not UTF-8. Unchecked, only the
 * value message, the duplicate and the UTF-8 verdicts.
 */
function seriesProblem(
  f: MetricFamily,
  m: Metric,
  options: { check: boolean; utf8Names: boolean },
): string | undefined {
  const at = `collected metric "${f.name}" { ${describe(f.type, m)}}`;
  // Refused unchecked too: stored, it would read as a 0 here and fail every scrape upstream, as the two below.
  if (m.valueMissing) return `${at} is not a ${f.type.toUpperCase()}`;
  let previous = "";
  for (const [k, v] of m.labels) {
    if (k === previous) return `${at} has two or more labels with the same name: ${k}`;
    if (options.check) {
      // Under UTF-8 validation (`--push.enable-utf8-names`) any non-empty UTF-8 name is valid, `__` still reserved.
      const valid = options.utf8Names ? isUtf8Name(k) && !k.startsWith("__") : isLabelName(k);
      if (!valid) return `${at} has a label with an invalid name: ${k}`;
      if (f.type === "summary" && k === "quantile") return `${at} must not have an explicit "quantile" label`;
    }
    if (hasInvalidUtf8(v)) return notUtf8(f, { metric: m, label: k });
    previous = k;
  }
  return undefined;
}

/** A family as the error texts name it. */
interface Named {
  readonly name: string;
  readonly type: MetricType;
}

/** client_golang's text (registry.go checkMetricConsistency) for a series whose label `label` is not UTF-8. */
export function notUtf8(family: Named, options: { metric: Metric; label: string }): string {
  const value = options.metric.labels.find(([k]) => k === options.label)?.[1] ?? "";
  return `collected metric "${family.name}" { ${describe(family.type, options.metric)}} has a label named "${options.label}" whose value is not utf8: ${goQuoteLossless(value)}`;
}

/**
 * Upstream's answer to a push whose grouping labels are not UTF-8 (`/metrics/job/%FF`, or `@base64` of such bytes):
 * every series the group would expose fails client_golang's Gather, its two timestamp gauges included, one error each
 * (client_golang's MultiError). Upstream then keeps the group and fails every later push and scrape; ours refuses the
 * push and stores nothing. Undefined when every grouping label is UTF-8.
 */
export function groupingNotUtf8(
  prepared: PreparedPush,
  options: { labels: GroupingLabels; now: Date },
): string | undefined {
  const label = Object.keys(options.labels)
    .sort()
    .find((k) => hasInvalidUtf8(options.labels[k] ?? ""));
  if (label === undefined) return undefined;
  const times = [
    { name: PUSH_TIME, help: PUSH_TIME_HELP, value: options.now.getTime() / 1000 },
    { name: FAILURE_TIME, help: FAILURE_TIME_HELP, value: 0 },
  ].map(({ name, help, value }) =>
    sanitize({ name, help, type: "gauge", metrics: [{ labels: [], value }] }, options.labels),
  );
  const errors = [...prepared.sanitized, ...times].flatMap((f) =>
    f.metrics.map((metric) => `\n* ${notUtf8(f, { metric, label })}`),
  );
  return `${errors.length} error(s) occurred:${errors.join("")}`;
}

/** client_golang's text for a series of `family` held twice. */
export function collectedBefore(family: Named, m: Metric | undefined): string {
  return `collected metric "${family.name}" { ${describe(family.type, m)}} was collected before with the same name and label values`;
}

/** client_golang's text for a series of `family` whose family is also held with the type `held`. */
export function notOfType(family: Named, options: { metric: Metric | undefined; held: MetricType }): string {
  return `collected metric "${family.name}" { ${describe(family.type, options.metric)}} is not a ${options.held.toUpperCase()}`;
}

/** One stored series back in structured form (only an error text needs it). */
export function seriesAt(f: RenderedFamily, i: number): Metric | undefined {
  // The line's own protobuf value, not the first line's (parseRenderedFamily pairs them by index).
  const protoValues = f.protoValues === undefined ? {} : { protoValues: [f.protoValues[i]] };
  return parseRenderedFamily({ ...f, lines: [f.lines.at(i) ?? ""], ...protoValues }).metrics[0];
}

/** A series as pushed, from its lines: {@link seriesAt} without the `+Inf` bucket rendering added, if it did. */
export function pushedSeries(
  f: RenderedFamily,
  i: number,
  options: { addedInf: boolean },
): Metric | undefined {
  const m = seriesAt(f, i);
  if (m === undefined || !options.addedInf || m.buckets === undefined) return m;
  return { ...m, buckets: m.buckets.slice(0, -1) };
}

/**
 * Per family of a prepared push, the series whose `+Inf` bucket rendering added (histograms pushed without one, as
 * client_golang's protobuf sends them), or undefined when none: what `MemoryStore.pushRendered` (memory-store.ts) needs to
 * quote such a series as pushed after the structured form is gone. The shared store keeps this instead of the structured
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
  const parts = m.labels.map(([k, v]) => `label:{name:${JSON.stringify(k)} value:${protoTextString(v)}}`);
  // A protobuf series without its type's value message: client_golang prints whatever other one it has.
  if (m.valueMissing) return parts.join(" ");
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

/** A string as the protobuf text format writes it: bytes that are not UTF-8 as octal escapes (`"\\377"`). */
function protoTextString(value: string): string {
  if (!hasInvalidUtf8(value)) return JSON.stringify(value);
  let out = "";
  for (const char of value) {
    const code = char.charCodeAt(0);
    if (char.length === 1 && code >= 0xdc80 && code <= 0xdcff) out += `\\${(code - 0xdc00).toString(8)}`;
    else out += JSON.stringify(char).slice(1, -1);
  }
  return `"${out}"`;
}
