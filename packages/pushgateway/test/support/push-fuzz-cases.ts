// Seeded push sequences for push-fuzz.peers.test.ts: text and protobuf bodies, grouping-key paths, methods and
// Content-Types drawn from small pools so that names collide across groups and pushes. Everything is a pure function of
// the random source, so a seed replays a case exactly.
import { gzipSync } from "node:zlib";
import { metricFamilyType } from "./metric-family-type.js";
import type { Step } from "./peer-compare.js";

type Rand = () => number;

const pick = <T>(r: Rand, items: readonly T[]): T => items[Math.floor(r() * items.length)] as T;
const chance = (r: Rand, p: number): boolean => r() < p;
const upTo = (r: Rand, n: number): number => Math.floor(r() * (n + 1));

export const PB_TYPE =
  "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited";

// Names are shared across groups on purpose (type clashes, HELP differences, duplicate series); some are invalid,
// some are spelled like Object.prototype properties, some are the gateway's own families.
const METRIC_NAMES = [
  "m",
  "fam",
  "c",
  "c_total",
  "h",
  "s",
  "x:y",
  "constructor",
  "__proto__",
  "toString",
  "h_count",
  "s_sum",
];
const ODD_METRIC_NAMES = ["1abc", "a-b", "é", "push_time_seconds", "process_open_fds", "hasOwnProperty", ""];
const LABEL_NAMES = ["a", "b", "instance", "job", "le", "quantile", "constructor", "__proto__", "toString"];
const ODD_LABEL_NAMES = ["__x", "__name__", "a-b", "", "Ä", "hasOwnProperty", "1a", "valueOf"];
// As written in the body: escapes are text-format escapes, some of them invalid.
const LABEL_VALUES = ["", "x", "y", "with space", "é", "日本", "\\\\", '\\"', "\\n", "a\\nb", "=", "/"];
const ODD_LABEL_VALUES = ["\\t", "\\q", "\\", "\t", "x".repeat(300)];
const VALUES = ["1", "0", "2", "3.14", "-1", "-0", "NaN", "+Inf", "-Inf", "1e-5", "1234567", "0.1", "100000"];
const ODD_VALUES = [
  ...["Inf", "inf", "nan", "Infinity", "-inf", "1e309", "-1e309", "0x10", "1_000", ".5", "5.", "+5", "1E3"],
  ...["5e-324", "1.7976931348623157e308", "abc", "", "0b1", "1e", "--1", "+-1", "٣"],
];
const TIMESTAMPS = [
  "0",
  "-1",
  "1700000000000",
  "99999999999999999999",
  "1.5",
  "+5",
  "abc",
  "-9223372036854775808",
];
const TYPES = ["counter", "gauge", "histogram", "summary", "untyped"];
const ODD_TYPES = ["GAUGE", "Counter", "foo", "gauge_histogram", "", "info"];
const HELPS = ["Help.", "other help", "with \\\\ backslash", "line\\nbreak", "ünïcödé ✓", ""];
const ODD_HELPS = ["bad \\q escape", "trailing \\", "  spaced  "];
const JOBS = ["j1", "j2", "constructor", "__proto__", "with space", "é"];
const PATH_LABELS = ["instance", "a", "b", "job", "__x", "a-b", "constructor", "le"];
const PATH_VALUES = ["i1", "i2", "x", "", "a/b", "é", "with space", "=", "__proto__"];

/** A sample of a family as the body will write it. */
interface Sample {
  suffix: string;
  labels: [string, string][];
  value: string;
  timestamp?: string;
}

interface Family {
  name: string;
  type: string | undefined;
  help: string | undefined;
  samples: Sample[];
}

function labelPairs(r: Rand, odd: number): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = upTo(r, 2); i > 0; i--) {
    const name = chance(r, odd) ? pick(r, ODD_LABEL_NAMES) : pick(r, LABEL_NAMES);
    const value = chance(r, odd) ? pick(r, ODD_LABEL_VALUES) : pick(r, LABEL_VALUES);
    pairs.push([name, value]);
  }
  return pairs;
}

const value = (r: Rand, odd: number) => (chance(r, odd) ? pick(r, ODD_VALUES) : pick(r, VALUES));

function family(r: Rand, odd: number): Family {
  const name = chance(r, odd) ? pick(r, ODD_METRIC_NAMES) : pick(r, METRIC_NAMES);
  const type = chance(r, 0.3) ? undefined : chance(r, odd) ? pick(r, ODD_TYPES) : pick(r, TYPES);
  const help = chance(r, 0.5) ? undefined : chance(r, odd) ? pick(r, ODD_HELPS) : pick(r, HELPS);
  const samples: Sample[] = [];
  const series = 1 + upTo(r, 2);
  for (let i = 0; i < series; i++) {
    const labels = labelPairs(r, odd);
    const kind = type?.toLowerCase();
    if (kind === "histogram" || kind === "summary") {
      // Buckets or quantiles, _sum and _count, each left out or made inconsistent now and then.
      const key = kind === "histogram" ? "le" : "quantile";
      const bounds =
        kind === "histogram" ? ["0.1", "1", "+Inf", "NaN", "x"] : ["0.5", "0.9", "1.5", "-1", "NaN"];
      for (let b = upTo(r, 3); b > 0; b--)
        samples.push({
          suffix: kind === "histogram" ? "_bucket" : "",
          labels: [...labels, [key, chance(r, 0.9) ? pick(r, bounds.slice(0, 3)) : pick(r, bounds)]],
          value: value(r, odd),
        });
      if (chance(r, 0.8)) samples.push({ suffix: "_sum", labels, value: value(r, odd) });
      if (chance(r, 0.8)) samples.push({ suffix: "_count", labels, value: value(r, odd) });
      if (chance(r, odd))
        samples.push({ suffix: pick(r, ["", "_bucket", "_total"]), labels, value: value(r, odd) });
    } else {
      samples.push({ suffix: chance(r, odd / 2) ? "_total" : "", labels, value: value(r, odd) });
    }
  }
  for (const s of samples) if (chance(r, odd / 3)) s.timestamp = pick(r, TIMESTAMPS);
  return { name, type, help, samples };
}

function sampleLine(r: Rand, name: string, s: Sample): string {
  const pairs = s.labels.map(([n, v]) => `${n}="${v}"`);
  const sep = chance(r, 0.1) ? " " : "";
  const labels =
    pairs.length > 0 || chance(r, 0.1) ? `${sep}{${pairs.join(",")}${chance(r, 0.1) ? "," : ""}}` : "";
  const gap = chance(r, 0.1) ? pick(r, ["  ", "\t", " \t "]) : " ";
  const ts = s.timestamp === undefined ? "" : ` ${s.timestamp}`;
  return `${name}${s.suffix}${labels}${gap}${s.value}${ts}`;
}

/** A text-format body: HELP/TYPE in any order, duplicated or late, with comments, blanks and whitespace noise. */
export function textBody(r: Rand, odd: number): string {
  const lines: string[] = [];
  for (let f = 1 + upTo(r, 2); f > 0; f--) {
    const fam = family(r, odd);
    const meta: string[] = [];
    if (fam.help !== undefined) meta.push(`# HELP ${fam.name}${fam.help === "" ? "" : ` ${fam.help}`}`);
    if (fam.type !== undefined) meta.push(`# TYPE ${fam.name} ${fam.type}`);
    if (chance(r, 0.5)) meta.reverse();
    if (meta.length > 0 && chance(r, odd / 2)) meta.push(pick(r, meta));
    const samples = fam.samples.map((s) => sampleLine(r, fam.name, s));
    if (chance(r, odd / 2)) samples.push(pick(r, samples));
    if (meta.length > 0 && chance(r, odd / 3)) lines.push(...samples, ...meta);
    else lines.push(...meta, ...samples);
  }
  const noisy: string[] = [];
  for (const line of lines) {
    if (chance(r, 0.1)) noisy.push(pick(r, ["", "# a comment", "#x", "#", "   ", "# HELP", "# TYPE"]));
    let l = line;
    if (chance(r, 0.08)) l = `${pick(r, [" ", "\t", "  "])}${l}`;
    if (chance(r, 0.08)) l = `${l}${pick(r, [" ", "\t", " \t"])}`;
    noisy.push(l);
  }
  const eol = chance(r, odd / 4) ? "\r\n" : "\n";
  const body = noisy.join(eol);
  return chance(r, odd / 4) ? body : `${body}${eol}`;
}

const PB_TYPES: Record<string, string> = {
  counter: "COUNTER",
  gauge: "GAUGE",
  summary: "SUMMARY",
  untyped: "UNTYPED",
};

/** A delimited protobuf body from the same family model: valid names only (see the skips in the test file). */
export function protobufBody(r: Rand, odd: number): Buffer {
  const out: Buffer[] = [];
  for (let f = 1 + upTo(r, 2); f > 0; f--) {
    const name = pick(r, [...METRIC_NAMES, "push_time_seconds", "process_open_fds"]);
    const kind = pick(r, ["counter", "gauge", "untyped", "summary", "histogram"]);
    const num = () => Number(pick(r, [...VALUES, "1e309"]));
    const metric = [];
    for (let i = 1 + upTo(r, 1); i > 0; i--) {
      const label = labelPairs(r, odd).map(([n, v]) => ({ name: n, value: v }));
      const m: Record<string, unknown> = { label };
      if (kind === "summary")
        m.summary = {
          sampleCount: upTo(r, 5),
          sampleSum: num(),
          quantile: [{ quantile: 0.5, value: num() }],
        };
      else if (kind === "histogram")
        m.histogram = {
          sampleCount: upTo(r, 5),
          sampleSum: num(),
          bucket: chance(r, 0.7) ? [{ upperBound: 1, cumulativeCount: upTo(r, 3) }] : [],
        };
      else m[chance(r, odd / 2) ? pick(r, ["counter", "gauge", "untyped"]) : kind] = { value: num() };
      if (chance(r, odd / 3)) m.timestampMs = 1000;
      metric.push(m);
    }
    const fam: Record<string, unknown> = { name, metric };
    if (chance(r, 0.9)) fam.type = PB_TYPES[kind] ?? "HISTOGRAM";
    if (chance(r, 0.5)) fam.help = pick(r, HELPS);
    out.push(Buffer.from(metricFamilyType.encodeDelimited(metricFamilyType.fromObject(fam)).finish()));
  }
  const body = Buffer.concat(out);
  // Broken bodies: cut short, or a length prefix that promises more than follows.
  if (chance(r, odd / 3)) return body.subarray(0, Math.max(1, Math.floor(body.length * r())));
  if (chance(r, odd / 4)) return Buffer.concat([body, Buffer.from([0x7f, 0x0a])]);
  return body;
}

/** base64url with one of the padding variants upstream accepts (none, exact, one more `=`). */
function base64Segment(r: Rand, value: string): string {
  const raw = Buffer.from(value).toString("base64url");
  if (raw === "") return pick(r, ["=", "==", "==="]);
  const padded = raw.padEnd(Math.ceil(raw.length / 4) * 4, "=");
  return pick(r, [raw, padded, `${raw}=`]);
}

function pathValue(r: Rand, value: string, name: string): [string, string] {
  // An empty value or one with a slash can only travel as @base64; the others go either way.
  if (value === "" || value.includes("/") || chance(r, 0.3))
    return [`${name}@base64`, base64Segment(r, value)];
  return [name, encodeURIComponent(value)];
}

/** A grouping-key path: job, then 0-2 label pairs (repeated names, job among them, now and then a trailing slash). */
export function groupPath(r: Rand, odd: number): string {
  const [jobKey, job] = pathValue(r, chance(r, odd / 4) ? "" : pick(r, JOBS), "job");
  let path = `/metrics/${jobKey}/${job}`;
  for (let i = upTo(r, 2); i > 0; i--) {
    const [k, v] = pathValue(r, pick(r, PATH_VALUES), pick(r, PATH_LABELS));
    path += `/${k}/${v}`;
  }
  if (chance(r, odd / 4)) path += "/";
  return path;
}

const TEXT_TYPES = [
  undefined,
  "text/plain; version=0.0.4",
  "text/plain",
  "text/plain; version=0.0.4; charset=utf-8",
  "application/octet-stream",
];

/** One request of a sequence. */
export function step(r: Rand, odd: number, groups: readonly string[]): Step {
  const path = pick(r, groups);
  const method = pick(r, ["PUT", "PUT", "POST", "POST", "POST", "DELETE", "GET"]);
  if (method === "DELETE" || method === "GET") return { method, path };
  if (chance(r, 0.2))
    return {
      method,
      path,
      body: protobufBody(r, odd),
      headers: { "Content-Type": chance(r, 0.9) ? PB_TYPE : "application/vnd.google.protobuf" },
    };
  const contentType = pick(r, TEXT_TYPES);
  const body = chance(r, 0.03) ? "" : textBody(r, odd);
  const headers: Record<string, string> = contentType === undefined ? {} : { "Content-Type": contentType };
  // Now and then gzipped, as clients may send it (both read `Content-Encoding: gzip`).
  if (chance(r, 0.05))
    return { method, path, body: gzipSync(body), headers: { ...headers, "Content-Encoding": "gzip" } };
  return { method, path, body, headers };
}

/** A case: a few groups (so pushes collide) and 1-4 requests among them. */
export function sequence(r: Rand): Step[] {
  const odd = pick(r, [0.05, 0.15, 0.3]);
  const groups = Array.from({ length: 1 + upTo(r, 2) }, () => groupPath(r, odd));
  return Array.from({ length: 1 + upTo(r, 3) }, () => step(r, odd, groups));
}
