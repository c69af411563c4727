import { goQuote, goQuoteRune } from "@local/go-compat/quote";
import { ParseError } from "../errors.js";
import { goQuoteLossless, hasInvalidUtf8 } from "./lossless-utf8.js";
import type { Metric, MetricFamily, MetricType } from "./metric-family.js";

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;
const TYPES: Record<string, MetricType> = {
  counter: "counter",
  gauge: "gauge",
  summary: "summary",
  histogram: "histogram",
  untyped: "untyped",
};

/**
 * Parses the text exposition format 0.0.4 strictly, as prometheus/common's `TextParser` does, with its error texts
 * and line numbers (`text format parsing error in line N: ...`). Summaries and histograms are folded into one
 * metric per label set. With `utf8` (`--push.enable-utf8-names`, prometheus/common's `UTF8Validation`) metric and
 * label names may be quoted strings: `{"some.metric",instance="x","dotted.label"="v"} 1`, `# TYPE "some.metric" gauge`.
 *
 * @throws {ParseError}
 */
export function parseText(text: string, options: { utf8?: boolean } = {}): MetricFamily[] {
  const utf8 = options.utf8 === true;
  const families = new Map<string, MetricFamily>();
  const typed = new Map<string, MetricType>();
  const helped = new Set<string>();
  const sampled = new Set<string>();
  const labelIndex = new Map<MetricFamily, { byLabels: Map<string, Metric>; indexed: number }>();
  const lines = text.split("\n");
  // Go's parser streams: an error on an earlier byte wins, and input that ends anywhere but at the start of a line
  // (after blanks) is `unexpected end of input stream` on that line (prometheus/common expfmt/text_parse.go).
  const last = lines.pop() ?? "";
  if (!/^[ \t]*$/.test(last)) lines.push(last);
  const partialIndex = /^[ \t]*$/.test(last) ? -1 : lines.length - 1;
  lines.forEach((raw, index) => {
    const n = index + 1;
    const partial = index === partialIndex;
    const fail = (msg: string): never => {
      throw new ParseError(`text format parsing error in line ${n}: ${msg}`);
    };
    const eof = (): never => fail("unexpected end of input stream");
    // `ch` (below) reads a character; reading past the end of an unterminated last line is Go's EOF.
    const line = raw.replace(/^[ \t]+/, "");
    const ch = (pos: number): string | undefined => (partial && pos >= line.length ? eof() : line[pos]);
    if (line === "") return;
    if (line.startsWith("#")) {
      if (partial) eof();
      const tokens = line
        .slice(1)
        .replace(/^[ \t]+/, "")
        .split(/[ \t]+/);
      const keyword = tokens[0];
      if (keyword !== "HELP" && keyword !== "TYPE") return;
      const rest = line
        .slice(1)
        .replace(/^[ \t]+/, "")
        .slice(4)
        .replace(/^[ \t]+/, "");
      // A bare `# HELP` or `# TYPE` is an ordinary comment to Go's parser.
      if (rest === "") return;
      let name: string;
      let after: string;
      if (utf8 && rest.startsWith('"')) {
        const quoted = readQuoted(rest, 0, fail);
        name = quoted.value;
        if (name === "") fail("invalid metric name in comment");
        after = rest.slice(quoted.end);
      } else {
        const nameMatch = NAME.exec(rest);
        if (!nameMatch) fail("invalid metric name in comment");
        name = nameMatch?.[0] ?? "";
        after = rest.slice(name.length);
      }
      if (after !== "" && !/^[ \t]/.test(after)) fail("invalid metric name in comment");
      const value = after.replace(/^[ \t]+/, "");
      if (keyword === "HELP") {
        if (helped.has(name)) fail(`second HELP line for metric name ${goQuote(name)}`);
        helped.add(name);
        if (value !== "") family(name).help = unescapeHelp(value, fail);
      } else {
        if (typed.has(name) || sampled.has(name))
          fail(`second TYPE line for metric name ${goQuote(name)}, or TYPE reported after samples`);
        const type = TYPES[value.trim().toLowerCase()];
        if (type === undefined) fail(`unknown metric type ${goQuote(value.trim())}`);
        typed.set(name, type as MetricType);
        family(name).type = type as MetricType;
      }
      return;
    }
    let name = "";
    let pos = 0;
    let braceFirst = false;
    if (utf8 && line.startsWith("{")) {
      // The name as the first item inside the braces, quoted: `{"some.metric"}` or `{"some.metric",l="v"}`.
      pos = skipBlank(line, 1);
      if (ch(pos) !== '"') fail("invalid metric name");
      const quoted = readQuoted(line, pos, fail);
      name = quoted.value;
      pos = skipBlank(line, quoted.end);
      if (name === "" || (ch(pos) !== "," && ch(pos) !== "}")) fail("invalid metric name");
      if (ch(pos) === ",") pos++;
      braceFirst = true;
    } else {
      const nameMatch = NAME.exec(line);
      if (!nameMatch) fail("invalid metric name");
      name = nameMatch?.[0] ?? "";
      pos = name.length;
      const next = ch(pos);
      if (next !== undefined && next !== " " && next !== "\t" && next !== "{") fail("invalid metric name");
      pos = skipBlank(line, pos);
    }
    const labels: [string, string][] = [];
    if (braceFirst || ch(pos) === "{") {
      if (!braceFirst) pos++;
      for (;;) {
        pos = skipBlank(line, pos);
        if (ch(pos) === "}") {
          pos++;
          break;
        }
        let labelName: string;
        if (utf8 && ch(pos) === '"') {
          const quoted = readQuoted(line, pos, fail);
          labelName = quoted.value;
          if (labelName === "") fail(`invalid label name for metric ${goQuote(name)}`);
          pos = quoted.end;
        } else {
          const ln = LABEL_NAME.exec(line.slice(pos));
          if (!ln) fail(`invalid label name for metric ${goQuote(name)}`);
          labelName = ln?.[0] ?? "";
          pos += labelName.length;
        }
        if (labelName === "__name__") fail('label name "__name__" is reserved');
        pos = skipBlank(line, pos);
        if (ch(pos) !== "=") fail(`expected '=' after label name, found ${goQuoteRune(ch(pos) ?? "")}`);
        pos = skipBlank(line, pos + 1);
        if (ch(pos) !== '"')
          fail(`expected '"' at start of label value, found ${goQuoteRune(ch(pos) ?? "")}`);
        pos++;
        let value = "";
        for (;;) {
          const c = ch(pos);
          // The line ended inside the value: upstream reads on into the next line and stops at the newline.
          if (c === undefined) fail(`label value ${goQuoteLossless(value)} contains unescaped new-line`);
          if (c === '"') {
            pos++;
            // prometheus/common text_parse.go startLabelValue: a value must be valid UTF-8.
            if (hasInvalidUtf8(value)) fail(`invalid label value ${goQuoteLossless(value)}`);
            break;
          }
          if (c === "\\") {
            const e = ch(pos + 1);
            if (e === "\\") value += "\\";
            else if (e === '"') value += '"';
            else if (e === "n") value += "\n";
            // A backslash ending the line escapes the newline, which upstream names.
            else fail(`invalid escape sequence '\\${e ?? "\n"}'`);
            pos += 2;
            continue;
          }
          value += c;
          pos++;
        }
        if (labels.some(([k]) => k === labelName)) fail(`duplicate label names for metric ${goQuote(name)}`);
        labels.push([labelName, value]);
        pos = skipBlank(line, pos);
        if (ch(pos) === ",") pos++;
        else if (ch(pos) !== "}") fail(`unexpected end of label value ${goQuoteLossless(value)}`);
      }
    }
    pos = skipBlank(line, pos);
    const valueToken = /^[^ \t]*/.exec(line.slice(pos))?.[0] ?? "";
    ch(pos + valueToken.length);
    const value = parseGoFloat(valueToken);
    if (value === undefined) fail(`expected float as value, got ${goQuote(valueToken)}`);
    pos = skipBlank(line, pos + valueToken.length);
    let timestampMs: number | undefined;
    if (pos < line.length) {
      const tsToken = /^[^ \t]*/.exec(line.slice(pos))?.[0] ?? "";
      ch(pos + tsToken.length);
      if (!/^-?\d+$/.test(tsToken)) fail(`expected integer as timestamp, got ${goQuote(tsToken)}`);
      timestampMs = Number(tsToken);
      const rest = line.slice(pos + tsToken.length);
      if (rest.trim() !== "") fail(`spurious string after timestamp: ${goQuote(rest)}`);
    }
    const folded = foldedBase(name);
    const special = folded?.kind === "quantile" ? "quantile" : folded?.kind === "bucket" ? "le" : undefined;
    const bound = labels.find(([k]) => k === special)?.[1];
    const boundValue =
      bound === undefined
        ? Number.NaN
        : (parseGoFloat(bound) ??
          fail(`expected float as value for '${special}' label, got ${goQuote(bound)}`));
    addSample({
      name,
      labels,
      value: value as number,
      timestampMs,
      folded,
      special,
      bound: boundValue,
    });
  });
  return [...families.values()].filter((f) => f.metrics.length > 0);

  function family(name: string): MetricFamily {
    let f = families.get(name);
    if (f === undefined) {
      f = { name, help: undefined, type: "untyped", metrics: [] };
      families.set(name, f);
    }
    return f;
  }

  /** Adds a sample; `folded`, `special` and `bound` are what the line's checks already worked out. */
  function addSample(s: {
    name: string;
    labels: [string, string][];
    value: number;
    timestampMs: number | undefined;
    folded: ReturnType<typeof foldedBase>;
    /** The `quantile` or `le` label of a folded sample. */
    special: string | undefined;
    /** That label's value (NaN when absent). */
    bound: number;
  }): void {
    const base = s.folded;
    if (base !== undefined) {
      const f = family(base.name);
      sampled.add(base.name);
      const key = s.labels.filter(([k]) => k !== s.special);
      let m = metricWithLabels(f, key);
      if (m === undefined) {
        m = { labels: key, ...(f.type === "summary" ? { quantiles: [] } : { buckets: [] }) };
        f.metrics.push(m);
      }
      if (s.timestampMs !== undefined) m.timestampMs = s.timestampMs;
      if (base.kind === "sum") m.sum = s.value;
      else if (base.kind === "count") m.count = s.value;
      // A quantile or bucket whose bound is NaN or absent makes the series but is dropped, as upstream's parser drops
      // it (prometheus/common text_parse.go readingValue: `case !math.IsNaN(p.currentQuantile)`).
      else if (Number.isNaN(s.bound)) return;
      else if (base.kind === "quantile") m.quantiles?.push([s.bound, s.value]);
      else m.buckets?.push([s.bound, s.value]);
      return;
    }
    const f = family(s.name);
    sampled.add(s.name);
    f.metrics.push({
      labels: s.labels,
      value: s.value,
      ...(s.timestampMs === undefined ? {} : { timestampMs: s.timestampMs }),
    });
  }

  /**
   * The family's first series with exactly these labels (in any order). A summary or histogram series spans many
   * lines, so this is asked once per line: an index per family, extended with the series added since the last
   * call, keeps it constant-time where a scan made a family of n series cost n².
   */
  function metricWithLabels(f: MetricFamily, labels: readonly [string, string][]): Metric | undefined {
    let index = labelIndex.get(f);
    if (index === undefined) {
      index = { byLabels: new Map(), indexed: 0 };
      labelIndex.set(f, index);
    }
    for (; index.indexed < f.metrics.length; index.indexed++) {
      const m = f.metrics[index.indexed] as Metric;
      const k = labelSetKey(m.labels);
      if (!index.byLabels.has(k)) index.byLabels.set(k, m);
    }
    return index.byLabels.get(labelSetKey(labels));
  }

  /** For a summary's or histogram's `_sum`, `_count`, `_bucket` or quantile sample: its family and role. */
  function foldedBase(
    name: string,
  ): { name: string; kind: "sum" | "count" | "bucket" | "quantile" } | undefined {
    const t = typed.get(name);
    if (t === "summary") return { name, kind: "quantile" };
    for (const [suffix, kind] of [
      ["_sum", "sum"],
      ["_count", "count"],
      ["_bucket", "bucket"],
    ] as const) {
      if (!name.endsWith(suffix)) continue;
      const base = name.slice(0, -suffix.length);
      const bt = typed.get(base);
      if (bt === "histogram" || (bt === "summary" && kind !== "bucket")) return { name: base, kind };
    }
    return undefined;
  }
}

/** A quoted name from `start` (at its `"`): its value (escapes `\\`, `\"`, `\n`) and the position after it. */
function readQuoted(
  line: string,
  start: number,
  fail: (msg: string) => never,
): { value: string; end: number } {
  let value = "";
  for (let pos = start + 1; pos < line.length; pos++) {
    const c = line[pos];
    if (c === '"') return { value, end: pos + 1 };
    if (c === "\\") {
      const e = line[pos + 1];
      if (e === "\\" || e === '"') value += e;
      else if (e === "n") value += "\n";
      else fail(`invalid escape sequence '\\${e ?? ""}'`);
      pos++;
      continue;
    }
    value += c;
  }
  return fail(`unexpected end of quoted name ${goQuote(value)}`);
}

/** A label set's identity regardless of order (names are unique within a series: duplicates fail to parse). */
function labelSetKey(labels: readonly [string, string][]): string {
  return JSON.stringify([...labels].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function skipBlank(line: string, pos: number): number {
  let p = pos;
  while (line[p] === " " || line[p] === "\t") p++;
  return p;
}

/** HELP escapes as Go reads them: `\\`, `\n` and `\"`; any other is an error (expfmt readTokenUntilNewline). */
function unescapeHelp(text: string, fail: (msg: string) => never): string {
  return text.replace(/\\(.?)/gsu, (_m, c: string) => {
    if (c === "n") return "\n";
    if (c === "\\" || c === '"') return c;
    // `c` is empty for a backslash ending the line: upstream names the newline it escapes.
    return fail(`invalid escape sequence '\\${c === "" ? "\n" : c}'`);
  });
}

/** The decimal forms Go's `strconv.ParseFloat` reads (no hex, no underscores). */
export const GO_DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** Go's `strconv.ParseFloat`: decimal forms, `Inf`/`Infinity`/`NaN` in any case; no hex, no underscores. */
export function parseGoFloat(token: string): number | undefined {
  if (/^[+-]?(inf|infinity)$/i.test(token))
    return token.startsWith("-") ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  if (/^nan$/i.test(token)) return Number.NaN;
  // Out of range is an error in Go (ErrRange), not an infinity.
  if (GO_DECIMAL.test(token)) {
    const value = Number(token);
    return Number.isFinite(value) ? value : undefined;
  }
  return undefined;
}
