import { isUtf8 } from "node:buffer";
import { formatGoFloat } from "../../exposition/go-float.js";
import type { MetricType } from "../../exposition/metric-family.js";
import { isLegacyLabelName, isLegacyMetricName } from "../../exposition/metric-names.js";
import type { KeyedFamily, RenderedFamily } from "../../exposition/rendered-family.js";
import { PlainSeries } from "./plain-series.js";
import { ProtoWriter } from "./proto-writer.js";

// The persistence file's common case done directly between stored lines and protobuf bytes: gauge, counter and
// untyped families with classic names, one value per series and nothing else (no timestamps, exemplars, created
// timestamps). Going through structured families (an object per series and label) cost most of the time of writing
// and reading a file of 1e6 series (bench/pushgateway/README.md); anything else takes that general path, and
// simple-families.test.ts holds both paths to the same results.

/** io.prometheus.client.MetricType numbers of the types handled here, and the Metric field of each one's value. */
const TYPES: Readonly<Record<string, { readonly number: number; readonly field: number }>> = {
  counter: { number: 0, field: 3 },
  gauge: { number: 1, field: 2 },
  untyped: { number: 3, field: 5 },
};
const TYPE_BY_NUMBER = new Map<number, MetricType>([
  [0, "counter"],
  [1, "gauge"],
  [3, "untyped"],
]);

/**
 * The `MetricFamily` protobuf message of a stored family, from its lines; undefined when the family is not simple
 * (see above) or a line is not as the store renders it.
 */
export function encodeSimpleFamily(f: RenderedFamily): Buffer | undefined {
  const type = TYPES[f.type];
  if (type === undefined || f.protoValues !== undefined || f.utf8 === true) return undefined;
  const out = new ProtoWriter();
  out.string(1, f.name);
  // A help sent empty is still set (a protobuf push's), and written so: upstream's scrape writes `# HELP name ` for it.
  if (f.help !== undefined) out.string(2, f.help);
  out.varintField(3, type.number);
  // Each nested message's length is known from its strings' byte lengths, so the series is written in place: no
  // buffer per label pair or value (the writes at 1e6 series spent their time collecting those).
  for (const line of f.lines) {
    const parsed = parseLine(line, f.name);
    if (parsed === undefined) return undefined;
    const sizes: number[] = [];
    let metricSize = 11; // the value message: key, length 9, then field 1 as a double
    for (const [k, v] of parsed.labels) {
      const kLength = Buffer.byteLength(k);
      const vLength = Buffer.byteLength(v);
      const pairSize = 2 + varintSize(kLength) + kLength + varintSize(vLength) + vLength;
      sizes.push(pairSize);
      metricSize += 1 + varintSize(pairSize) + pairSize;
    }
    out.header(4, metricSize);
    parsed.labels.forEach(([k, v], i) => {
      out.header(1, sizes[i] ?? 0);
      out.string(1, k);
      out.string(2, v);
    });
    out.header(type.field, 9);
    out.double(1, parsed.value);
  }
  return out.finish();
}

/** The stored form of a simple family's protobuf message; undefined when it is not simple (see above). */
export function decodeSimpleFamily(message: Uint8Array): KeyedFamily | undefined {
  // Offsets into the message, no view or object per field: reading 1e6 series made them by the ten million, and the
  // collector spent more time on them than the decoding did.
  const buf = Buffer.from(message.buffer, message.byteOffset, message.byteLength);
  const r = new WireReader(buf);
  let name = "";
  let help: string | undefined;
  let type: MetricType | undefined = "untyped";
  const metrics: number[] = [];
  while (r.at < buf.length) {
    const key = r.varint();
    const number = Math.floor(key / 8);
    const wire = key % 8;
    if (number === 1 && wire === 2) name = r.string() ?? "\0";
    else if (number === 2 && wire === 2) help = r.string();
    else if (number === 3 && wire === 0) type = TYPE_BY_NUMBER.get(r.varint());
    else if (number === 4 && wire === 2) {
      const length = r.varint();
      metrics.push(r.at, r.at + length);
      r.at += length;
    } else return undefined;
    if (r.failed) return undefined;
  }
  const spec = type === undefined ? undefined : TYPES[type];
  if (r.failed || type === undefined || spec === undefined || !isLegacyMetricName(name)) return undefined;
  const count = metrics.length / 2;
  const lines: string[] = new Array(count);
  const keys: string[] = new Array(count);
  const labels: [string, string][] = [];
  const plain = new PlainSeries(buf, Buffer.from(name, "latin1"));
  for (let i = 0; i < count; i++) {
    const end = metrics[2 * i + 1] as number;
    r.at = metrics[2 * i] as number;
    if (plain.read(r.at, { end, field: spec.field })) {
      lines[i] = plain.line;
      keys[i] = plain.key;
      continue;
    }
    labels.length = 0;
    let value = 0;
    while (r.at < end) {
      const key = r.varint();
      const number = Math.floor(key / 8);
      if (key % 8 !== 2) return undefined;
      const length = r.varint();
      const fieldEnd = r.at + length;
      if (number === 1) {
        const pair = r.labelPair(fieldEnd);
        if (pair === undefined) return undefined;
        labels.push(pair);
      } else if (number === spec.field) {
        // Gauge, Counter or Untyped holding only its value (field 1, a double).
        if (length === 0) value = 0;
        else if (length === 9 && buf[r.at] === 0x09) value = buf.readDoubleLE(r.at + 1);
        else return undefined;
      } else if (number !== 2 && number !== 3 && number !== 5) return undefined;
      r.at = fieldEnd;
      if (r.failed || r.at > end) return undefined;
    }
    for (let j = 1; j < labels.length; j++)
      if ((labels[j - 1]?.[0] ?? "") >= (labels[j]?.[0] ?? "")) return undefined;
    lines[i] = renderLine(name, labels, value);
    keys[i] = seriesKeyOf(labels);
  }
  return { name, help, type, lines, keys };
}

/** Reads varints and strings of a message at `at`; `failed` once it read past the end or found invalid UTF-8. */
class WireReader {
  at = 0;
  failed = false;
  readonly #buf: Buffer;

  constructor(buf: Buffer) {
    this.#buf = buf;
  }

  varint(): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      const b = this.#buf[this.at++];
      if (b === undefined) break;
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= 128;
    }
    this.failed = true;
    return 0;
  }

  /** A length-delimited string; undefined (and `failed`) when it is not valid UTF-8. */
  string(): string | undefined {
    const length = this.varint();
    const start = this.at;
    this.at += length;
    return this.#text(start, this.at);
  }

  /** A LabelPair message ending at `end`: its name and value. */
  labelPair(end: number): [string, string] | undefined {
    let k = "";
    let v = "";
    while (this.at < end) {
      const key = this.varint();
      if (key % 8 !== 2) return undefined;
      const text = this.string();
      if (text === undefined) return undefined;
      if (key >>> 3 === 1) k = text;
      else if (key >>> 3 === 2) v = text;
      else return undefined;
    }
    return isLegacyLabelName(k) ? [k, v] : undefined;
  }

  #text(start: number, end: number): string | undefined {
    const buf = this.#buf;
    if (end > buf.length) {
      this.failed = true;
      return undefined;
    }
    let ascii = true;
    for (let i = start; i < end; i++)
      if ((buf[i] as number) >= 0x80) {
        ascii = false;
        break;
      }
    if (ascii) return buf.toString("latin1", start, end);
    if (!isUtf8(buf.subarray(start, end))) {
      this.failed = true;
      return undefined;
    }
    return buf.toString("utf8", start, end);
  }
}

/** The bytes of a varint of `n`. */
function varintSize(n: number): number {
  let size = 1;
  for (let v = n; v >= 0x80; v = Math.floor(v / 128)) size++;
  return size;
}

/** `renderMetric`'s line for a classic-named series (rendered-family.ts, render-metric.ts). */
function renderLine(name: string, labels: readonly [string, string][], value: number): string {
  // Array#join makes a flat string (no rope kept in the store: flat-string.ts), without flatString's copy.
  const parts: string[] = [name];
  for (let i = 0; i < labels.length; i++) {
    const [k, v] = labels[i] as [string, string];
    parts.push(
      i === 0 ? "{" : ",",
      k,
      '="',
      ESCAPED.test(v) ? v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n") : v,
      '"',
    );
  }
  parts.push(labels.length === 0 ? " " : "} ", formatGoFloat(value));
  return parts.join("");
}

const ESCAPED = /[\\"\n]/;

/** `seriesKey` of the labels (rendered-family.ts). */
function seriesKeyOf(labels: readonly [string, string][]): string {
  const parts: string[] = [String(labels.length).padStart(4, "0")];
  for (const [, v] of labels) parts.push(v);
  for (const [k] of labels) parts.push(k);
  return parts.join("\0");
}

/** A stored line back: labels and value; undefined when it is not `name{k="v",...} value` of classic names. */
function parseLine(line: string, name: string): { labels: [string, string][]; value: number } | undefined {
  if (!line.startsWith(name)) return undefined;
  let at = name.length;
  const labels: [string, string][] = [];
  if (line[at] === "{") {
    at++;
    while (line[at] !== "}") {
      const eq = line.indexOf('="', at);
      if (eq < 0) return undefined;
      const k = line.slice(at, eq);
      if (!isLegacyLabelName(k)) return undefined;
      at = eq + 2;
      let v = "";
      let start = at;
      for (;;) {
        const c = line.charCodeAt(at);
        if (Number.isNaN(c)) return undefined;
        if (c === 0x22) break;
        if (c === 0x5c) {
          const e = line[at + 1];
          v += `${line.slice(start, at)}${e === "n" ? "\n" : e}`;
          at += 2;
          start = at;
          continue;
        }
        at++;
      }
      v += line.slice(start, at);
      labels.push([k, v]);
      at++;
      if (line[at] === ",") at++;
    }
    at++;
  }
  if (line[at] !== " ") return undefined;
  const token = line.slice(at + 1);
  const value =
    token === "NaN"
      ? Number.NaN
      : token === "+Inf"
        ? Number.POSITIVE_INFINITY
        : token === "-Inf"
          ? Number.NEGATIVE_INFINITY
          : Number(token);
  if (Number.isNaN(value) && token !== "NaN") return undefined;
  return { labels, value };
}
