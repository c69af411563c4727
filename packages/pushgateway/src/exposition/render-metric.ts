import { formatGoFloat } from "./go-float.js";
import type { Metric, MetricFamily } from "./metric-family.js";
import { isLegacyLabelName, isLegacyMetricName, quoteName } from "./metric-names.js";

/**
 * The exposition lines of one series: summaries as quantiles, `_sum`, `_count`; histograms as buckets (a `+Inf`
 * bucket added when missing), `_sum`, `_count`; `le`/`quantile` after the sorted labels; Go float formatting.
 */
export function renderMetric(f: MetricFamily, m: Metric): string {
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
  return out.join("\n");
}

function sample(
  name: string,
  labels: readonly [string, string][],
  value: number,
  extra?: [string, string],
): string {
  const all = extra ? [...labels, extra] : labels;
  const pairs = all.map(([k, v]) => `${isLegacyLabelName(k) ? k : quoteName(k)}="${escapeValue(v)}"`);
  // A name outside the classic set goes quoted inside the braces (prometheus/common expfmt text_create.go).
  if (!isLegacyMetricName(name)) return `{${[quoteName(name), ...pairs].join(",")}} ${formatGoFloat(value)}`;
  return `${name}${pairs.length === 0 ? "" : `{${pairs.join(",")}}`} ${formatGoFloat(value)}`;
}

/** A label value inside its quotes: `\\`, `"` and newline escaped (most values have none: no copies then). */
function escapeValue(v: string): string {
  if (!NEEDS_ESCAPE.test(v)) return v;
  return v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

const NEEDS_ESCAPE = /[\\"\n]/;
