import { flatString } from "../flat-string.js";
import type { Metric, MetricFamily, MetricType } from "./metric-family.js";
import { escapeName, isLegacyLabelName, isLegacyMetricName, quoteName } from "./metric-names.js";
import type { EscapingScheme } from "./negotiate.js";
import { parseText } from "./parse-text.js";
import { renderMetric } from "./render-metric.js";
import { JoinedLines, PackedLines, type SeriesLines } from "./series-lines.js";
import { goUint64String } from "./write-protobuf.js";

/**
 * A family in the columnar form the store keeps and the scrape writes: per series only its exposition line(s),
 * rendered once. No object per series, and no key string either (the sort key and identity are read back from the
 * lines when needed, {@link lineSeriesKey}): at 100k series this is what keeps the gateway's memory under upstream's
 * (bench/pushgateway/README.md); the structured form is parsed back from the lines for the rare readers that need it
 * (JSON API, persistence).
 */
export interface RenderedFamily {
  readonly name: string;
  readonly help: string | undefined;
  readonly type: MetricType;
  /**
   * Per series: its lines as `GET /metrics` writes them (several for summaries and histograms); packed into one
   * string per family in the store ({@link storedForm}).
   */
  readonly lines: SeriesLines;
  /**
   * Per series: its `protoValue` (native histogram, exemplars: what the lines cannot hold), present only when some
   * series of the family has one.
   */
  readonly protoValues?: readonly (string | undefined)[];
  /** Set when the family's name or a label name is outside the classic set (`--push.enable-utf8-names`). */
  readonly utf8?: true;
}

/**
 * A family as a push carries it, rendered: with each series' `seriesKey`, which the checks of the push use and the
 * Redis log carries to every replica. The store keeps it without the keys ({@link storedForm}).
 */
export interface KeyedFamily extends RenderedFamily {
  readonly lines: readonly string[];
  /** Per series: `seriesKey` of its labels. */
  readonly keys: readonly string[];
}

/** `family` without its series keys and with its lines packed ({@link PackedLines}), as the store keeps it. */
export function storedForm(family: RenderedFamily | KeyedFamily): RenderedFamily {
  if (!("keys" in family)) return family;
  const { keys, lines, protoValues, utf8 } = family;
  // Built with its properties named, not spread from a rest object: those each got a hidden class of their own
  // (0.2 KB per family in a heap snapshot). A single series stays an array of one: packing it would only add the
  // offsets (the push-time gauges of every group are such families).
  const stored: RenderedFamily = {
    name: family.name,
    help: family.help,
    type: family.type,
    lines: lines.length > 1 ? PackedLines.of(lines) : lines,
    ...(protoValues === undefined ? {} : { protoValues }),
    ...(utf8 === undefined ? {} : { utf8 }),
  };
  // Its series' order, sorted now while the keys exist: a scrape then merges groups' sorted runs without reading
  // their keys back (mergeFamilies).
  if (keys.length > 1) {
    const order = (keys.length < 65536 ? new Uint16Array(keys.length) : new Uint32Array(keys.length)).map(
      (_v, i) => i,
    );
    ORDERS.set(
      stored,
      order.sort((a, b) => compareStrings(keys[a] ?? "", keys[b] ?? "") || a - b),
    );
  }
  return stored;
}

/** Renders every series of a family once; the strings are flat copies (no ropes or slices of the push body). */
export function renderFamily(family: MetricFamily): KeyedFamily {
  const f =
    family.type === "histogram" && family.metrics.some(lacksInfBucket) ? withPushedBuckets(family) : family;
  const lines = new Array<string>(f.metrics.length);
  const keys = new Array<string>(f.metrics.length);
  f.metrics.forEach((m, i) => {
    lines[i] = flatString(renderMetric(f, m));
    keys[i] = flatString(seriesKey(m));
  });
  const rich = f.metrics.some((m) => m.protoValue !== undefined);
  const utf8 =
    !isLegacyMetricName(f.name) || f.metrics.some((m) => m.labels.some(([k]) => !isLegacyLabelName(k)));
  return {
    name: flatString(f.name),
    help: f.help === undefined ? undefined : flatString(f.help),
    type: f.type,
    lines,
    keys,
    ...(rich ? { protoValues: f.metrics.map((m) => m.protoValue) } : {}),
    ...(utf8 ? { utf8: true as const } : {}),
  };
}

function lacksInfBucket(m: Metric): boolean {
  return (
    m.protoValue === undefined &&
    m.buckets !== undefined &&
    !m.buckets.some(([le]) => le === Number.POSITIVE_INFINITY)
  );
}

/**
 * A histogram pushed as text without a `+Inf` bucket keeps its buckets as pushed in its `protoValue`, as a protobuf
 * push does: the exposition line adds the bucket (expfmt's text writer does), while upstream's `/api/v1/metrics` and
 * protobuf scrape serve the stored message, without it (api/v1/api.go, expfmt's protobuf encoder).
 */
function withPushedBuckets(f: MetricFamily): MetricFamily {
  const number = (v: number) => (Number.isFinite(v) ? v : String(v));
  return {
    ...f,
    metrics: f.metrics.map((m) =>
      lacksInfBucket(m)
        ? {
            ...m,
            protoValue: JSON.stringify({
              sampleCount: goUint64String(m.count ?? 0),
              sampleSum: number(m.sum ?? 0),
              bucket: (m.buckets ?? []).map(([le, c]) => ({
                cumulativeCount: goUint64String(c),
                upperBound: number(le),
              })),
            }),
          }
        : m,
    ),
  };
}

/**
 * Same-named families joined into one, as a gather merges them: the first one's HELP and TYPE kept, the series of
 * all concatenated in order. A family no other shares is returned as it is, not copied.
 */
export function mergeFamilies(families: Iterable<RenderedFamily>): RenderedFamily[] {
  const byName = new Map<string, RenderedFamily[]>();
  for (const f of families) {
    const parts = byName.get(f.name);
    if (parts === undefined) byName.set(f.name, [f]);
    else parts.push(f);
  }
  return Array.from(byName.values(), (parts) => {
    const [first, ...rest] = parts as [RenderedFamily, ...RenderedFamily[]];
    if (rest.length === 0) return first;
    // The parts' lines read through, not copied: a copy was an array of every series for each merged view.
    const lines = new JoinedLines(parts.map((p) => p.lines));
    const total = lines.length;
    const merged = {
      ...first,
      lines,
      // One group's UTF-8 label names make the merged lines need UTF-8 parsing and escaping.
      ...(parts.some((p) => p.utf8) ? { utf8: true as const } : {}),
    };
    const order = runsInOrder(parts, total);
    if (order !== undefined) ORDERS.set(merged, order);
    if (!parts.some((p) => p.protoValues !== undefined)) return merged;
    const protoValues = parts.flatMap(
      (p) => p.protoValues ?? new Array<undefined>(p.lines.length).fill(undefined),
    );
    return { ...merged, protoValues };
  });
}

/**
 * The exposition order of same-named families merged in the order given, from each one's own order, when their
 * sorted runs do not interleave (the usual case: a grouping label's value comes first in every key of a group);
 * undefined when they do, or a part's order is unknown (the scrape then reads every key back and sorts).
 */
function runsInOrder(parts: readonly RenderedFamily[], total: number): Uint32Array | undefined {
  const runs: { offset: number; order: ArrayLike<number>; first: string; last: string }[] = [];
  let offset = 0;
  for (const p of parts) {
    const n = p.lines.length;
    const order = n === 1 ? [0] : ORDERS.get(p);
    if (n > 0 && order === undefined) return undefined;
    if (order !== undefined && n > 0) {
      const first = lineSeriesKey(p.lines.at(order[0] as number) as string);
      const last = n === 1 ? first : lineSeriesKey(p.lines.at(order[n - 1] as number) as string);
      runs.push({ offset, order, first, last });
    }
    offset += n;
  }
  runs.sort((a, b) => compareStrings(a.first, b.first));
  for (let i = 1; i < runs.length; i++) {
    if (!((runs[i - 1] as { last: string }).last < (runs[i] as { first: string }).first)) return undefined;
  }
  const order = new Uint32Array(total);
  let at = 0;
  for (const run of runs)
    for (let j = 0; j < run.order.length; j++) order[at++] = run.offset + (run.order[j] as number);
  return order;
}

/**
 * The structured family back from its lines (the text format round-trips: Go float formatting is shortest
 * round-trip, label escapes are reversible). A histogram pushed without a `+Inf` bucket comes back with the one the
 * exposition adds.
 */
export function parseRenderedFamily(f: RenderedFamily): MetricFamily {
  const parse = (lines: string) =>
    parseText(`# TYPE ${f.utf8 ? quoteName(f.name) : f.name} ${f.type}\n${lines}\n`, {
      utf8: f.utf8 === true,
      stored: true,
    })[0]?.metrics ?? [];
  let metrics = f.lines.length === 0 ? [] : parse(f.lines.join("\n"));
  // Two series with the same labels (a store the consistency check did not guard) read as one summary or histogram
  // when parsed together: each is parsed alone, so the file, the API and a snapshot keep both, as upstream does.
  if (metrics.length !== f.lines.length) metrics = Array.from(f.lines, (lines) => parse(lines)).flat();
  // One metric per series, in the lines' order: the protobuf value of each goes back where it was.
  f.protoValues?.forEach((value, i) => {
    const m = metrics[i];
    if (value !== undefined && m !== undefined) m.protoValue = value;
  });
  return { name: f.name, help: f.help, type: f.type, metrics };
}

/**
 * A family as a scrape that asked for name escaping `scheme` sees it: metric and label names escaped (prometheus/common
 * model `EscapeMetricFamily`). Only families with names outside the classic set change; they are parsed back and
 * rendered again.
 */
export function escapedFamily(f: RenderedFamily, scheme: EscapingScheme): RenderedFamily {
  if (f.utf8 !== true || scheme === "allow-utf-8") return f;
  const parsed = parseRenderedFamily(f);
  return storedForm(
    renderFamily({
      ...parsed,
      name: escapeName(parsed.name, scheme),
      metrics: parsed.metrics.map((m) => ({
        ...m,
        labels: m.labels.map(
          ([k, v]) => [isLegacyMetricName(k) ? k : escapeName(k, scheme), v] as [string, string],
        ),
      })),
    }),
  );
}

/**
 * Series order of client_golang and series identity in one string: label count, then label values in label-name
 * order, then the label names, NUL-separated (NUL sorts below every other character). Go orders by count and values
 * only; the names just break ties Go leaves unordered, and make the key unique per label set.
 */
export function seriesKey(m: Metric): string {
  let key = String(m.labels.length).padStart(4, "0");
  for (const [, v] of m.labels) key += `\0${keyPart(v)}`;
  for (const [k] of m.labels) key += `\0${keyPart(k)}`;
  return key;
}

/**
 * A value as a key part, so the NUL after it sorts below whatever follows it in another value: U+0000 is written
 * U+0001 U+0001 and U+0001 as U+0001 U+0002, an order-preserving code without NUL. A value holding a NUL
 * (`/metrics/job/a%00b`) then sorts after its prefix (`a`), as Go compares the strings; other values are unchanged.
 */
function keyPart(text: string): string {
  if (!text.includes("\0") && !text.includes("\x01")) return text;
  let out = "";
  for (const c of text) out += c === "\0" ? "\x01\x01" : c === "\x01" ? "\x01\x02" : c;
  return out;
}

/**
 * {@link seriesKey} of a series from its rendered line(s) ({@link renderFamily}): the last line (the only one, or a
 * summary's or histogram's `_count`) carries exactly the series' labels, in name order, names quoted when outside the
 * classic set and values escaped as render-metric.ts writes them.
 */
export function lineSeriesKey(lines: string): string {
  const line = lines.slice(lines.lastIndexOf("\n") + 1);
  let at = line.indexOf("{");
  // A legacy metric name has no brace, and nothing before the value's space has one outside the label set.
  if (at < 0 || at > line.indexOf(" ")) return "0000";
  // Count, values, names: joined once into a flat string (appending made a rope each comparison of the sort then
  // flattened). A scrape reads back every series' key after a change, so this is kept to indexOf and slices.
  const parts = [""];
  const names: string[] = [];
  if (at === 0) {
    // A name outside the classic set goes first inside the braces, quoted; the labels follow, if any.
    at = quotedEnd(line, at + 1);
    if (line.charCodeAt(at) === COMMA) at++;
  } else at++;
  while (at < line.length && line.charCodeAt(at) !== CLOSE) {
    let end: number;
    if (line.charCodeAt(at) === QUOTE) {
      end = quotedEnd(line, at);
      names.push(unescaped(line.slice(at + 1, end - 1)));
    } else {
      end = line.indexOf("=", at);
      names.push(line.slice(at, end));
    }
    // `="`, the value, its closing quote.
    at = quotedEnd(line, end + 1);
    if (at <= end) break; // not a line this renderer wrote: no closing quote
    parts.push(keyPart(unescaped(line.slice(end + 2, at - 1))));
    if (line.charCodeAt(at) === COMMA) at++;
  }
  parts[0] = String(names.length).padStart(4, "0");
  for (const name of names) parts.push(keyPart(name));
  return parts.join("\0");
}

const COMMA = 0x2c;
const CLOSE = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The index just past the closing quote of the quoted string starting at `start`. */
function quotedEnd(line: string, start: number): number {
  let i = line.indexOf('"', start + 1);
  // A quote after an odd number of backslashes is escaped.
  for (;;) {
    let backslashes = 0;
    while (line.charCodeAt(i - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0 || i < 0) return i + 1;
    i = line.indexOf('"', i + 1);
  }
}

/** A quoted string's content back: `\\`, `\"` and `\n` as render-metric.ts escaped them. */
function unescaped(s: string): string {
  if (!s.includes("\\")) return s;
  return s.replace(/\\(.)/g, (_m, c: string) => (c === "n" ? "\n" : c));
}

/**
 * The labels of a series back from its {@link seriesKey}, or undefined when a NUL inside a label value or name makes
 * the key ambiguous.
 */
export function seriesKeyLabels(key: string): Map<string, string> | undefined {
  const parts = key.split("\0");
  const count = Number(parts[0]);
  if (parts.length !== 1 + 2 * count) return undefined;
  const labels = new Map<string, string>();
  for (let i = 1; i <= count; i++) labels.set(parts[count + i] as string, parts[i] as string);
  return labels;
}

/**
 * The families a scrape shows, in client_golang's exposition order: by name, empty ones left out, each with the
 * indexes of its series sorted by their sort key (`seriesKey`). Every scrape format writes in this order.
 */
export function expositionOrder(
  families: readonly RenderedFamily[],
): { readonly family: RenderedFamily; readonly order: SeriesOrder }[] {
  return families
    .filter((f) => f.lines.length > 0)
    .sort((a, b) => compareStrings(a.name, b.name))
    .map((family) => {
      let order = family.lines.length === 1 ? SINGLE : ORDERS.get(family);
      if (order === undefined) {
        // The keys live only while sorting: kept per series they were a quarter of a 100k-series store.
        const keys = Array.from(family.lines, lineSeriesKey);
        order = Array.from(keys, (_k, i) => i).sort((a, b) => compareStrings(keys[a] ?? "", keys[b] ?? ""));
        ORDERS.set(family, order);
      }
      return { family, order };
    });
}

/**
 * Each family's order, computed once per family object: a stored family's when it is stored ({@link storedForm}), a
 * merged one's from its parts' or else at its first scrape. The store hands out the same merged families until it
 * changes, so concurrent and repeated scrapes of an unchanged store sort once and share the result.
 */
const ORDERS = new WeakMap<RenderedFamily, SeriesOrder>();

/** Indexes of a family's series in exposition order. */
export type SeriesOrder = ArrayLike<number> & Iterable<number>;

const SINGLE: SeriesOrder = [0];

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
