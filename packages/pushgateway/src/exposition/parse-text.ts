import { goQuote, goQuoteRune } from "@local/go-compat/quote";
import { ParseError } from "../errors.js";
import { goQuoteLossless, hasInvalidUtf8 } from "./lossless-utf8.js";
import type { Metric, MetricFamily, MetricType } from "./metric-family.js";
import { goUint64Cast } from "./write-protobuf.js";

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;
// client_model's MetricType names, matched upper-cased. A gauge histogram has no text form (see below).
const TYPES: Record<string, MetricType | "gauge_histogram"> = {
  GAUGE_HISTOGRAM: "gauge_histogram",
  COUNTER: "counter",
  GAUGE: "gauge",
  SUMMARY: "summary",
  HISTOGRAM: "histogram",
  UNTYPED: "untyped",
};

/**
 * Parses the text exposition format 0.0.4 strictly, as prometheus/common's `TextParser` does, with its error texts
 * and line numbers (`text format parsing error in line N: ...`). Summaries and histograms are folded into one
 * metric per label set. With `utf8` (`--push.enable-utf8-names`, prometheus/common's `UTF8Validation`) metric and
 * label names may be quoted strings: `{"some.metric",instance="x","dotted.label"="v"} 1`, `# TYPE "some.metric" gauge`.
 *
 * @throws {ParseError}
 */
export function parseText(text: string, options: { utf8?: boolean; stored?: boolean } = {}): MetricFamily[] {
  const utf8 = options.utf8 === true;
  // Go's parser keeps a map of families by name; `typed` and `helped` are its `Type != nil` and `Help != nil`.
  const families = new Map<string, MetricFamily>();
  const typed = new Set<MetricFamily>();
  const helped = new Set<MetricFamily>();
  const gaugeHistograms = new Set<MetricFamily>();
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
      // An unterminated last line ends in Go's EOF wherever its reading stops short of an error (expfmt startComment).
      const tokens = line
        .slice(1)
        .replace(/^[ \t]+/, "")
        .split(/[ \t]+/);
      const keyword = tokens[0];
      const comment = (): void => {
        if (partial) eof();
      };
      if (keyword !== "HELP" && keyword !== "TYPE") {
        comment();
        return;
      }
      const rest = line
        .slice(1)
        .replace(/^[ \t]+/, "")
        .slice(4)
        .replace(/^[ \t]+/, "");
      // A bare `# HELP` or `# TYPE` is an ordinary comment to Go's parser.
      if (rest === "") {
        comment();
        return;
      }
      let name: string;
      let after: string;
      if (utf8 && rest.startsWith('"')) {
        const quoted = readQuoted(rest, 0, fail);
        name = quoted.value;
        if (name === "") fail("invalid metric name in comment");
        after = rest.slice(quoted.end);
      } else {
        const nameMatch = NAME.exec(rest);
        name = nameMatch?.[0] ?? "";
        after = rest.slice(name.length);
        // A line ending right after the name (even an empty one) is a comment (expfmt startComment).
        if (after === "") {
          comment();
          return;
        }
        if (!nameMatch) fail("invalid metric name in comment");
      }
      if (after === "") {
        comment();
        return;
      }
      if (!/^[ \t]/.test(after)) fail("invalid metric name in comment");
      // The family is looked up (and made) before the rest of the line is read, as a `_count`, `_sum` or `_bucket`
      // name finds its summary or histogram (expfmt setOrCreateCurrentMF).
      const f = resolve(name).family;
      const value = after.replace(/^[ \t]+/, "");
      if (value === "") {
        comment();
        return;
      }
      if (keyword === "HELP") {
        if (helped.has(f)) fail(`second HELP line for metric name ${goQuote(f.name)}`);
        if (partial) {
          // Go meets a bad escape before the end; a backslash ending the input waits for a byte that never comes.
          unescapeHelp(/(^|[^\\])(\\\\)*\\$/.test(value) ? value.slice(0, -1) : value, fail);
          eof();
        }
        helped.add(f);
        f.help = unescapeHelp(value, fail);
      } else {
        if (typed.has(f))
          fail(`second TYPE line for metric name ${goQuote(f.name)}, or TYPE reported after samples`);
        if (partial) eof();
        // The rest of the line is the type, trailing blanks included, backslashes dropped (readTokenUntilNewline).
        const token = value.replaceAll("\\", "");
        const type = TYPES[token.toUpperCase()];
        if (type === undefined) fail(`unknown metric type ${goQuote(token)}`);
        typed.add(f);
        if (type === "gauge_histogram") gaugeHistograms.add(f);
        else f.type = type as MetricType;
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
      // A name runs until a byte that cannot continue it; what follows (`-b` in `a-b 1`) is read as the value.
      ch(pos);
      pos = skipBlank(line, pos);
    }
    const { family: f, role } = resolve(name);
    // Go's parser accepts the type but cannot read a sample of it: it stores the series without a value, which
    // upstream then fails to expose on every scrape. Refused here instead.
    if (gaugeHistograms.has(f))
      fail(`unexpected type for metric name ${goQuote(f.name)}: push gauge histograms as protobuf`);
    if (!typed.has(f)) {
      typed.add(f);
      f.type = "untyped";
    }
    // In a summary every line's `quantile` label, in a histogram every line's `le`, is read as a float when met and
    // kept out of the series' labels (expfmt startLabelName, startLabelValue).
    // `stored`: lines the gateway wrote itself, where only a bucket's (quantile's) own `le` (`quantile`) is the bound and
    // a grouping or pushed label of that name on the other lines is a label.
    const bounded =
      !options.stored || (f.type === "histogram" ? name === `${f.name}_bucket` : name === f.name);
    const special = !bounded
      ? undefined
      : f.type === "summary"
        ? "quantile"
        : f.type === "histogram"
          ? "le"
          : undefined;
    let bound = Number.NaN;
    let storedBound: string | undefined;
    let storedAt = 0;
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
          if (!ln) fail(`invalid label name for metric ${goQuote(f.name)}`);
          labelName = ln?.[0] ?? "";
          pos += labelName.length;
        }
        // `stored`: a protobuf push with the consistency check off may have stored one (upstream keeps and lists it).
        if (labelName === "__name__" && !options.stored) fail('label name "__name__" is reserved');
        pos = skipBlank(line, pos);
        if (ch(pos) !== "=") fail(`expected '=' after label name, found ${quoteByte(ch(pos) ?? "")}`);
        // Duplicates are found at the `=`, before the value is read; the special label is not among the labels.
        // `stored`: a protobuf push may name a label twice; refused by the consistency check, whose error text
        // quotes the series from the lines the gateway rendered for it (consistency-check.ts seriesAt).
        if (labelName !== special && !options.stored && labels.some(([k]) => k === labelName))
          fail(`duplicate label names for metric ${goQuote(f.name)}`);
        pos = skipBlank(line, pos + 1);
        if (ch(pos) !== '"') fail(`expected '"' at start of label value, found ${quoteByte(ch(pos) ?? "")}`);
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
            // A backslash ending the line escapes the newline, which upstream names; Go's %c prints one byte.
            else fail(`invalid escape sequence '\\${e === undefined ? "\n" : byteChar(e)}'`);
            pos += 2;
            continue;
          }
          value += c;
          pos++;
        }
        if (labelName === special && options.stored) {
          // The gateway's own lines append the bound last: an earlier label of that name is a label, in its place
          // (labels are stored sorted by name, as Go sorts them; a protobuf scrape and the file keep that order).
          if (storedBound !== undefined) labels.splice(storedAt, 0, [labelName, storedBound]);
          storedBound = value;
          storedAt = labels.length;
        } else if (labelName === special) {
          bound =
            parseGoFloat(value) ??
            fail(`expected float as value for '${special}' label, got ${goQuote(value)}`);
        } else labels.push([labelName, value]);
        pos = skipBlank(line, pos);
        if (ch(pos) === ",") pos++;
        else if (ch(pos) !== "}") fail(`unexpected end of label value ${goQuoteLossless(value)}`);
      }
    }
    if (storedBound !== undefined)
      bound =
        parseGoFloat(storedBound) ??
        fail(`expected float as value for '${special}' label, got ${goQuote(storedBound)}`);
    pos = skipBlank(line, pos);
    const valueToken = /^[^ \t]*/.exec(line.slice(pos))?.[0] ?? "";
    ch(pos + valueToken.length);
    const value = parseGoFloat(valueToken);
    if (value === undefined) fail(`expected float as value, got ${goQuote(valueToken)}`);
    pos += valueToken.length;
    let timestampMs: number | undefined;
    // A blank after the value starts a timestamp, even at the end of the line (expfmt readingValue, startTimestamp:
    // `m 1 ` is `expected integer as timestamp, got ""`).
    if (pos < line.length) {
      pos = skipBlank(line, pos);
      const tsToken = /^[^ \t]*/.exec(line.slice(pos))?.[0] ?? "";
      ch(pos + tsToken.length);
      if (!isGoInt64(tsToken)) fail(`expected integer as timestamp, got ${goQuote(tsToken)}`);
      timestampMs = Number(tsToken);
      // The rest of the line, its blanks included and backslashes dropped, must be empty.
      const rest = line.slice(pos + tsToken.length);
      if (rest !== "" && partial) eof();
      if (rest !== "") fail(`spurious string after timestamp: ${goQuote(rest.replaceAll("\\", ""))}`);
    }
    const folded = f.type === "summary" || f.type === "histogram";
    addSample(f, { role, folded, labels, value: value as number, timestampMs, bound });
  });
  return [...families.values()].filter((f) => f.metrics.length > 0);

  /**
   * The family a name belongs to, as expfmt's setOrCreateCurrentMF finds it: the family of that exact name, else a
   * summary it is the `_count` or `_sum` of, else a histogram it is the `_count`, `_sum` or `_bucket` of, else a new
   * family. `role` says which of `_count` and `_sum` it is.
   */
  function resolve(name: string): { family: MetricFamily; role: "count" | "sum" | undefined } {
    const exact = families.get(name);
    if (exact !== undefined) return { family: exact, role: undefined };
    const role = isSuffixed(name, "_count") ? "count" : isSuffixed(name, "_sum") ? "sum" : undefined;
    const summary = role === undefined ? undefined : families.get(name.slice(0, -`_${role}`.length));
    if (summary?.type === "summary" && typed.has(summary)) return { family: summary, role };
    const base =
      role !== undefined
        ? name.slice(0, -`_${role}`.length)
        : isSuffixed(name, "_bucket")
          ? name.slice(0, -"_bucket".length)
          : undefined;
    const histogram = base === undefined ? undefined : families.get(base);
    if (histogram?.type === "histogram" && typed.has(histogram)) return { family: histogram, role };
    const created: MetricFamily = { name, help: undefined, type: "untyped", metrics: [] };
    families.set(name, created);
    return { family: created, role: undefined };
  }

  /** Adds a sample to its family (expfmt readingValue): summaries and histograms fold into one series per labels. */
  function addSample(
    f: MetricFamily,
    s: {
      role: "count" | "sum" | undefined;
      /** A summary's or histogram's line, folded into its series. */
      folded: boolean;
      labels: [string, string][];
      value: number;
      timestampMs: number | undefined;
      /** The `quantile` or `le` label's value (NaN when absent). */
      bound: number;
    },
  ): void {
    if (!s.folded) {
      f.metrics.push({
        labels: s.labels,
        value: s.value,
        ...(s.timestampMs === undefined ? {} : { timestampMs: s.timestampMs }),
      });
      return;
    }
    let m = metricWithLabels(f, s.labels);
    if (m === undefined) {
      m = { labels: s.labels, ...(f.type === "summary" ? { quantiles: [] } : { buckets: [] }) };
      f.metrics.push(m);
    }
    if (s.timestampMs !== undefined) m.timestampMs = s.timestampMs;
    if (s.role === "sum") m.sum = s.value;
    // The gateway's own lines hold counts already converted (a wrapped -1 is 2^64, which would convert to 2^63).
    else if (s.role === "count") m.count = options.stored ? s.value : goUint64Cast(s.value);
    // A quantile or bucket whose bound is NaN or absent makes the series but is dropped, as upstream's parser drops
    // it (prometheus/common text_parse.go readingValue: `case !math.IsNaN(p.currentQuantile)`).
    else if (Number.isNaN(s.bound)) return;
    else if (f.type === "summary") m.quantiles?.push([s.bound, s.value]);
    else m.buckets?.push([s.bound, options.stored ? s.value : goUint64Cast(s.value)]);
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
}

/** expfmt's isCount, isSum, isBucket: the suffix after at least one character. */
function isSuffixed(name: string, suffix: string): boolean {
  return name.length > suffix.length && name.endsWith(suffix);
}

/** Go's `strconv.ParseInt(s, 10, 64)` accepts it: an optional sign, decimal digits, within int64. */
function isGoInt64(token: string): boolean {
  if (!/^[+-]?\d+$/.test(token)) return false;
  const v = BigInt(token);
  return v >= -(2n ** 63n) && v < 2n ** 63n;
}

/**
 * The first byte of a character as Go's `%c`/`%q` print a byte: the rune of that value (`é` is read as 0xC3, `Ã`);
 * a byte that was not UTF-8 is kept as an escape by decodeUtf8Lossless (U+DC80..U+DCFF).
 */
function byteChar(c: string): string {
  const code = c.charCodeAt(0);
  if (code >= 0xdc80 && code <= 0xdcff) return String.fromCharCode(code - 0xdc00);
  return String.fromCharCode(Buffer.from(c)[0] ?? 0);
}

/** Go's `%q` of the byte read (expfmt quotes `p.currentByte`, a byte, not the character it starts). */
function quoteByte(c: string): string {
  return goQuoteRune(c === "" ? "" : byteChar(c));
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

/**
 * HELP escapes as current upstream reads them: `\\`, `\n` and `\"` (1.5.1's prometheus/common 0.39 refuses `\"`);
 * any other is an error naming the byte after the backslash (expfmt readTokenUntilNewline).
 */
function unescapeHelp(text: string, fail: (msg: string) => never): string {
  return text.replace(/\\(.?)/gsu, (_m, c: string) => {
    if (c === "n") return "\n";
    if (c === "\\" || c === '"') return c;
    // `c` is empty for a backslash ending the line: upstream names the newline it escapes.
    return fail(`invalid escape sequence '\\${c === "" ? "\n" : byteChar(c)}'`);
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
