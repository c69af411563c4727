import { GO_DECIMAL, parseGoFloat } from "./parse-text.js";

/** The exposition formats a scrape can get. */
export type ScrapeFormat = "text" | "protobuf-delimited" | "protobuf-text" | "protobuf-compact-text";

/** Name escaping schemes a scraper can ask for (prometheus/common model `EscapingKey` values). */
export type EscapingScheme = "allow-utf-8" | "underscores" | "dots" | "values";

const ESCAPING_SCHEMES: ReadonlySet<string> = new Set(["allow-utf-8", "underscores", "dots", "values"]);

const PROTO_TYPE = "application/vnd.google.protobuf";
const PROTO_PROTOCOL = "io.prometheus.client.MetricFamily";
const ENCODINGS: Readonly<Record<string, ScrapeFormat>> = {
  delimited: "protobuf-delimited",
  text: "protobuf-text",
  "compact-text": "protobuf-compact-text",
};

/**
 * The format, name escaping and Content-Type of a scrape, as prometheus/common v0.69's `expfmt.Negotiate` (what
 * upstream 1.11 serves with, promhttp without OpenMetrics) picks them: the Accept entries in goautoneg's order; each
 * entry's known `escaping` parameter replaces the scheme so far (`underscores` to begin with); the first entry that
 * is MetricFamily protobuf with a known encoding or `text/plain` of version 0.0.4 (or none) wins; anything else is
 * text 0.0.4. Debian's 1.5.1 predates the escaping parameter and sends none.
 */
export function negotiate(accept: string | undefined): {
  format: ScrapeFormat;
  escaping: EscapingScheme;
  contentType: string;
} {
  let escaping: EscapingScheme = "underscores";
  let format: ScrapeFormat = "text";
  for (const a of parseAccept(accept ?? "")) {
    const asked = a.params.get("escaping") ?? "";
    if (ESCAPING_SCHEMES.has(asked)) escaping = asked as EscapingScheme;
    if (`${a.type}/${a.subType}` === PROTO_TYPE && a.params.get("proto") === PROTO_PROTOCOL) {
      const encoding = a.params.get("encoding") ?? "";
      if (Object.hasOwn(ENCODINGS, encoding)) {
        format = ENCODINGS[encoding] as ScrapeFormat;
        break;
      }
    }
    const version = a.params.get("version") ?? "";
    if (a.type === "text" && a.subType === "plain" && (version === "0.0.4" || version === "")) break;
  }
  const contentType =
    format === "text"
      ? `text/plain; version=0.0.4; charset=utf-8; escaping=${escaping}`
      : `${PROTO_TYPE}; proto=${PROTO_PROTOCOL}; encoding=${format.slice("protobuf-".length)}; escaping=${escaping}`;
  return { format, escaping, contentType };
}

interface AcceptEntry {
  type: string;
  subType: string;
  q: number;
  params: Map<string, string>;
}

/**
 * goautoneg's `ParseAccept` (vendored in prometheus/common): entries split on `,` and `;` and trimmed of spaces
 * only, a media range without one `/` dropped (but a bare `*`), `q` read as a float32 (0 when unreadable), then
 * Go's `sort.Sort` with goautoneg's `Less`. That `Less` is no strict order (a `*` type loses to any other whatever
 * its q), so the sort is Go's insertion sort step for step, which is what Go runs for up to 12 entries.
 */
export function parseAccept(header: string): AcceptEntry[] {
  const entries: AcceptEntry[] = [];
  for (const raw of header.split(",")) {
    const [range = "", ...rest] = trimSpaces(raw).split(";");
    const sp = range.split("/");
    const type = trimSpaces(sp[0] ?? "");
    let subType: string;
    if (sp.length === 1 && type === "*") subType = "*";
    else if (sp.length === 2) subType = trimSpaces(sp[1] ?? "");
    else continue;
    const entry: AcceptEntry = { type, subType, q: 1, params: new Map() };
    for (const param of rest) {
      const eq = param.indexOf("=");
      if (eq < 0) continue;
      const token = trimSpaces(param.slice(0, eq));
      const value = param.slice(eq + 1);
      if (token === "q") entry.q = goParseFloat32(value);
      else entry.params.set(token, trimSpaces(value));
    }
    entries.push(entry);
  }
  const less = (a: AcceptEntry, b: AcceptEntry) =>
    a.q > b.q || (a.type !== "*" && b.type === "*") || (a.subType !== "*" && b.subType === "*");
  for (let i = 1; i < entries.length; i++) {
    for (let j = i; j > 0 && less(entries[j] as AcceptEntry, entries[j - 1] as AcceptEntry); j--) {
      [entries[j - 1], entries[j]] = [entries[j] as AcceptEntry, entries[j - 1] as AcceptEntry];
    }
  }
  return entries;
}

/** By hand: `/^ +| +$/g` backtracks quadratically over a long run of spaces inside a client's Accept header. */
function trimSpaces(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && s.charCodeAt(start) === 0x20) start++;
  while (end > start && s.charCodeAt(end - 1) === 0x20) end--;
  return s.slice(start, end);
}

/** `strconv.ParseFloat(s, 32)` with its error ignored: 0 for text Go cannot read, ±Inf past float32's range. */
function goParseFloat32(s: string): number {
  const value = parseGoFloat(s);
  if (value !== undefined) return Math.fround(value);
  // parseGoFloat refuses a decimal past float64's range (Go's ErrRange), where ParseFloat's value is ±Inf. Decimal
  // only: Go also reads hex floats (`0x1p-1`), which no Accept header carries.
  return GO_DECIMAL.test(s) ? Math.fround(Number(s)) : 0;
}
