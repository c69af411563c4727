import { formatGoFloat } from "./go-float.js";
import type { Metric, MetricFamily, MetricType } from "./metric-family.js";
import { goUint64String, PROTO_TYPES } from "./write-protobuf.js";

/** A field of the protobuf text format: a scalar already spelled, or a nested message. */
type Field = readonly [name: string, value: string | readonly Field[]];

/**
 * `MetricFamily` in the protobuf text formats client_golang answers `encoding=text` and `encoding=compact-text`
 * with (golang/protobuf v1's `MarshalTextString` and `CompactTextString`, what 1.5.1's client_model uses): fields
 * in declaration order, nested messages in `< >`, each family followed by a newline (`fmt.Fprintln`), so text
 * families are separated by a blank line and compact ones are one line each, ending in a space.
 */
export function* formatProtobufText(families: readonly MetricFamily[], compact: boolean): Generator<string> {
  for (const f of families) {
    const fields = familyFields(f);
    yield `${compact ? writeCompact(fields) : writeIndented(fields, "")}\n`;
  }
}

function writeIndented(fields: readonly Field[], indent: string): string {
  let out = "";
  for (const [name, value] of fields) {
    out +=
      typeof value === "string"
        ? `${indent}${name}: ${value}\n`
        : `${indent}${name}: <\n${writeIndented(value, `${indent}  `)}${indent}>\n`;
  }
  return out;
}

function writeCompact(fields: readonly Field[]): string {
  let out = "";
  for (const [name, value] of fields) {
    out += typeof value === "string" ? `${name}:${value} ` : `${name}:<${writeCompact(value)}> `;
  }
  return out;
}

/** client_model's field declaration order (Metric declares `histogram` before `timestamp_ms`). */
function familyFields(f: MetricFamily): Field[] {
  const fields: Field[] = [["name", quote(f.name)]];
  if (f.help !== undefined) fields.push(["help", quote(f.help)]);
  fields.push(["type", PROTO_TYPES[f.type]]);
  for (const m of f.metrics) fields.push(["metric", metricFields(f.type, m)]);
  return fields;
}

function metricFields(type: MetricType, m: Metric): Field[] {
  const fields: Field[] = m.labels.map(
    ([name, value]): Field => [
      "label",
      [
        ["name", quote(name)],
        ["value", quote(value)],
      ],
    ],
  );
  switch (type) {
    case "summary":
      fields.push([
        "summary",
        [
          ["sample_count", uint64(m.count ?? 0)],
          ["sample_sum", double(m.sum ?? 0)],
          ...(m.quantiles ?? []).map(
            ([q, v]): Field => [
              "quantile",
              [
                ["quantile", double(q)],
                ["value", double(v)],
              ],
            ],
          ),
        ],
      ]);
      break;
    case "histogram":
      fields.push([
        "histogram",
        [
          ["sample_count", uint64(m.count ?? 0)],
          ["sample_sum", double(m.sum ?? 0)],
          ...(m.buckets ?? []).map(
            ([le, c]): Field => [
              "bucket",
              [
                ["cumulative_count", uint64(c)],
                ["upper_bound", double(le)],
              ],
            ],
          ),
        ],
      ]);
      break;
    default:
      fields.push([type, [["value", double(m.value ?? 0)]]]);
  }
  if (m.timestampMs !== undefined) fields.push(["timestamp_ms", String(Math.trunc(m.timestampMs))]);
  return fields;
}

/** golang/protobuf's doubles: `inf`, `-inf`, `nan`, else `strconv.FormatFloat(v, 'g', -1, 64)`. */
function double(v: number): string {
  if (Number.isNaN(v)) return "nan";
  if (v === Number.POSITIVE_INFINITY) return "inf";
  if (v === Number.NEGATIVE_INFINITY) return "-inf";
  if (Object.is(v, -0)) return "-0";
  return formatGoFloat(v);
}

/** Counts are uint64 in client_model. */
function uint64(v: number): string {
  return goUint64String(v);
}

/**
 * golang/protobuf's `writeQuotedString`: `\n`, `\r`, `\t`, `"`, `\\` escaped, other bytes outside printable ASCII
 * (so every byte of a non-ASCII UTF-8 character) as three-digit octal escapes.
 */
function quote(s: string): string {
  let out = '"';
  for (const byte of Buffer.from(s, "utf8")) {
    if (byte === 0x0a) out += "\\n";
    else if (byte === 0x0d) out += "\\r";
    else if (byte === 0x09) out += "\\t";
    else if (byte === 0x22) out += '\\"';
    else if (byte === 0x5c) out += "\\\\";
    else if (byte >= 0x20 && byte < 0x7f) out += String.fromCharCode(byte);
    else out += `\\${byte.toString(8).padStart(3, "0")}`;
  }
  return `${out}"`;
}
