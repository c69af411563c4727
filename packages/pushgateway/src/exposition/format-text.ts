import { flatString } from "../flat-string.js";
import { formatGoFloat } from "./go-float.js";
import type { Metric, MetricFamily } from "./metric-family.js";

/**
 * The text exposition content type (format 0.0.4) as current upstream sends it: prometheus/common ≥ 0.60 (expfmt
 * `NegotiateAccept`) appends the name escaping scheme, `underscores` unless the Accept header asks for another known
 * one. Debian's 1.5.1 predates this and sends the type without the parameter.
 */
export function textContentType(accept: string | undefined): string {
  const asked = /(?:^|[;,\s])escaping=([a-z0-9-]+)/i.exec(accept ?? "")?.[1];
  const scheme = asked !== undefined && ESCAPING.has(asked) ? asked : "underscores";
  return `text/plain; version=0.0.4; charset=utf-8; escaping=${scheme}`;
}

const ESCAPING = new Set(["allow-utf-8", "underscores", "dots", "values"]);

/**
 * Writes families in the text format as client_golang does: families sorted by name, series by number of labels and
 * then label values in label-name order, `# HELP` only when set, `le`/`quantile` after the sorted labels, `+Inf`
 * bucket added when missing, Go float formatting (research §5).
 */
export function formatText(families: readonly MetricFamily[]): string {
  // Stored metrics are immutable (a push replaces them with new objects), so each one's text and sort key are
  // computed once and reused by every later scrape; this is what keeps a 100k-series scrape cheap.
  const out: string[] = [];
  for (const f of [...families].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (f.metrics.length === 0) continue;
    if (f.help !== undefined)
      out.push(`# HELP ${f.name} ${f.help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")}`);
    out.push(`# TYPE ${f.name} ${f.type}`);
    for (const m of sortMetrics(f.metrics)) out.push(renderMetric(f, m));
  }
  return out.length === 0 ? "" : `${out.join("\n")}\n`;
}

/**
 * The exposition lines of one series of a family, rendered once and cached; the store calls it at push time so a
 * scrape only sorts and joins.
 */
export function renderMetric(f: MetricFamily, m: Metric): string {
  const cached = rendered.get(m);
  if (cached !== undefined) return cached;
  const out: string[] = [];
  switch (f.type) {
    case "summary":
      for (const [q, v] of m.quantiles ?? [])
        out.push(sample(f.name, m.labels, v, ["quantile", formatGoFloat(q)]));
      out.push(sample(`${f.name}_sum`, m.labels, m.sum ?? 0));
      out.push(sample(`${f.name}_count`, m.labels, m.count ?? 0));
      break;
    case "histogram": {
      const buckets = [...(m.buckets ?? [])];
      if (!buckets.some(([le]) => le === Number.POSITIVE_INFINITY))
        buckets.push([Number.POSITIVE_INFINITY, m.count ?? 0]);
      for (const [le, c] of buckets)
        out.push(sample(`${f.name}_bucket`, m.labels, c, ["le", formatGoFloat(le)]));
      out.push(sample(`${f.name}_sum`, m.labels, m.sum ?? 0));
      out.push(sample(`${f.name}_count`, m.labels, m.count ?? 0));
      break;
    }
    default:
      out.push(sample(f.name, m.labels, m.value ?? 0));
  }
  const text = flatString(out.join("\n"));
  rendered.set(m, text);
  return text;
}

/** A metric's exposition lines, once rendered (the object is never mutated after it is stored). */
const rendered = new WeakMap<Metric, string>();
/** A metric's sort key: label count, then its values joined by NUL, which sorts below every other character. */
const sortKeys = new WeakMap<Metric, string>();

/**
 * Series order of client_golang: fewer labels first, then label values in label-name order. Values are compared
 * as one NUL-joined key, equal to the pairwise order unless a value itself contains NUL.
 */
export function sortMetrics(metrics: readonly Metric[]): Metric[] {
  const key = (m: Metric) => {
    let k = sortKeys.get(m);
    if (k === undefined) {
      k = flatString(`${String(m.labels.length).padStart(4, "0")}\0${m.labels.map(([, v]) => v).join("\0")}`);
      sortKeys.set(m, k);
    }
    return k;
  };
  return [...metrics].sort((a, b) => {
    const x = key(a);
    const y = key(b);
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

function sample(
  name: string,
  labels: readonly [string, string][],
  value: number,
  extra?: [string, string],
): string {
  const all = extra ? [...labels, extra] : labels;
  const text =
    all.length === 0
      ? ""
      : `{${all.map(([k, v]) => `${k}="${v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`).join(",")}}`;
  return `${name}${text} ${formatGoFloat(value)}`;
}
