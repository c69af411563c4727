/**
 * OpenTelemetry metric names, units and attribute keys as Prometheus names, after the OpenTelemetry specification
 * "Prometheus and OpenMetrics Compatibility" (OTLP Metric points to Prometheus) and its reference implementation,
 * prometheus/otlptranslator (`normalizeName`, `buildUnitSuffixes`, `NormalizeLabel`), with suffixes added as
 * Prometheus' OTLP receiver does by default.
 */

/** What the name of a family says about its points (only counters get `_total`, only gauges `_ratio`). */
export type OtelKind = "counter" | "gauge" | "other";

// otlptranslator unit_to_ucum.go: unitMap and perUnitMap.
const UNITS: Readonly<Record<string, string>> = {
  d: "days",
  h: "hours",
  min: "minutes",
  s: "seconds",
  ms: "milliseconds",
  us: "microseconds",
  ns: "nanoseconds",
  By: "bytes",
  KiBy: "kibibytes",
  MiBy: "mebibytes",
  GiBy: "gibibytes",
  TiBy: "tibibytes",
  KBy: "kilobytes",
  MBy: "megabytes",
  GBy: "gigabytes",
  TBy: "terabytes",
  m: "meters",
  V: "volts",
  A: "amperes",
  J: "joules",
  W: "watts",
  g: "grams",
  Cel: "celsius",
  Hz: "hertz",
  "1": "",
  "%": "percent",
};
const PER_UNITS: Readonly<Record<string, string>> = {
  s: "second",
  m: "minute",
  h: "hour",
  d: "day",
  w: "week",
  mo: "month",
  y: "year",
};

/**
 * The Prometheus metric name: the name split on every character outside `[A-Za-z0-9]` and joined with `_` (so dots
 * become `_` and runs of separators collapse), the unit's suffix appended unless already a word of the name (`ms` →
 * `milliseconds`, `By/s` → `bytes_per_second`, `{request}` dropped), `_total` for monotonic sums, `_ratio` for
 * gauges of unit `1`, and `_` before a leading digit.
 */
export function prometheusMetricName(name: string, options: { unit: string; kind: OtelKind }): string {
  const tokens = name.split(/[^A-Za-z0-9]+/).filter((t) => t !== "");
  const [main, per] = unitSuffixes(options.unit);
  if (main !== "" && !tokens.includes(main)) tokens.push(main);
  if (per !== "" && !tokens.join("_").includes(per)) tokens.push(per);
  if (options.kind === "counter") {
    const kept = tokens.filter((t) => t !== "total");
    tokens.length = 0;
    tokens.push(...kept, "total");
  }
  if (options.unit === "1" && options.kind === "gauge") {
    const kept = tokens.filter((t) => t !== "ratio");
    tokens.length = 0;
    tokens.push(...kept, "ratio");
  }
  const joined = tokens.join("_");
  return /^[0-9]/.test(joined) ? `_${joined}` : joined;
}

/** The unit's main and per-unit suffixes (`By/s` → `bytes`, `per_second`); `{…}` annotations give none. */
function unitSuffixes(unit: string): [string, string] {
  const slash = unit.indexOf("/");
  const mainUnit = (slash < 0 ? unit : unit.slice(0, slash)).trim();
  const perUnit = slash < 0 ? "" : unit.slice(slash + 1).trim();
  const main = mainUnit !== "" && !/[{}]/.test(mainUnit) ? cleanUnit(UNITS[mainUnit] ?? mainUnit) : "";
  const per = perUnit !== "" && !/[{}]/.test(perUnit) ? cleanUnit(PER_UNITS[perUnit] ?? perUnit) : "";
  return [main, per === "" ? "" : `per_${per}`];
}

/** A unit as a name part: characters outside the name set as `_`, runs collapsed, no leading or trailing `_`. */
function cleanUnit(unit: string): string {
  return unit.replace(/[^A-Za-z0-9]+/g, "_").replace(/^_+|_+$/g, "");
}

/**
 * An attribute key as a Prometheus label name (otlptranslator `NormalizeLabel`): characters outside `[A-Za-z0-9_]`
 * as `_`; `key_` before a leading digit, `key` before a leading `_` (so no key becomes a reserved `__` name).
 */
export function prometheusLabelName(key: string): string {
  const label = key.replace(/[^A-Za-z0-9_]/g, "_");
  if (/^[0-9]/.test(label)) return `key_${label}`;
  if (label.startsWith("_")) return `key${label}`;
  return label;
}
