import type { MetricFamily } from "../../exposition/metric-family.js";
import { decodeDelimitedProtobuf, readUvarint } from "../../exposition/parse-protobuf.js";
import { protobufCodec } from "../../exposition/protobuf-codec.js";
import type { RenderedFamily } from "../../exposition/rendered-family.js";
import { writeDelimitedProtobuf } from "../../exposition/write-protobuf.js";
import type { PersistedGroup } from "../metric-store.js";
import { FAILURE_TIME, FAILURE_TIME_HELP, PUSH_TIME, PUSH_TIME_HELP } from "../metric-store.js";
import { decodeGob, GOB_TYPE_ID, GobError, type GobValue, GobWriter, type WireType } from "./go-gob.js";
import { decodeSimpleFamily } from "./simple-families.js";

/** Seconds from Go's zero time (January 1, year 1, UTC) to the Unix epoch (time.go `unixToInternal`). */
const UNIX_TO_INTERNAL = 62_135_596_800n;

/**
 * Reads upstream's persistence file (storage/diskmetricstore.go `restore`, the same from 1.5 to 1.11): a gob of
 * `GroupingKeyToMetricGroup`, map of grouping key → `MetricGroup{Labels, Metrics}`, each family a
 * `TimestampedMetricFamily{Timestamp time.Time, GobbableMetricFamily}` whose gob bytes are the protobuf
 * `MetricFamily`. The two timestamp gauges become the group's push and failure times, each other family's
 * `Timestamp` its push time.
 *
 * @throws {GobError} when the data is not such a gob
 */
/** A family already encoded as its protobuf `MetricFamily` message. */
export interface EncodedFamily {
  readonly name: string;
  readonly proto: Buffer;
}

/** A group as {@link encodeUpstreamPersistence} takes it: families structured or already encoded. */
export interface EncodableGroup extends Omit<PersistedGroup, "families" | "rendered"> {
  readonly families: readonly (MetricFamily | EncodedFamily)[];
}

export async function decodeUpstreamPersistence(data: Buffer): Promise<PersistedGroup[]> {
  return [...upstreamGroups(data)];
}

/**
 * {@link decodeUpstreamPersistence} one group at a time. The stream's type definitions are checked against upstream's
 * types before any value is read, so a gob of another type is refused at once, whatever its size.
 *
 * @throws {GobError} when the data is not such a gob
 */
export function* upstreamGroups(data: Buffer, options: { stored?: boolean } = {}): Generator<PersistedGroup> {
  const [top] = decodeGob(data, { checkType: checkGroupsType });
  if (top?.kind !== "map") throw new GobError("not a map of metric groups");
  const codec = protobufCodec();
  for (const [, group] of top.entries) {
    if (group.kind !== "struct") throw new GobError("a metric group that is not a struct");
    const labelMap = group.fields.get("Labels");
    // fromEntries: a grouping label named `__proto__` is kept, where an assignment to `{}` would drop it.
    const labels: Record<string, string> = Object.fromEntries(
      labelMap?.kind === "map" ? labelMap.entries.map(([k, v]) => [stringOf(k), stringOf(v)]) : [],
    );
    let pushTime = 0;
    let failureTime = 0;
    // A Map, made an object at the end: a family may be named `__proto__`, which an assignment to `{}` would drop.
    const pushedAt = new Map<string, number>();
    const families: MetricFamily[] = [];
    const rendered: RenderedFamily[] = [];
    const metrics = group.fields.get("Metrics");
    for (const [nameValue, tmf] of metrics?.kind === "map" ? metrics.entries : []) {
      const name = stringOf(nameValue);
      if (tmf.kind !== "struct") throw new GobError(`family ${name} is not a TimestampedMetricFamily`);
      const stamp = tmf.fields.get("Timestamp");
      const proto = tmf.fields.get("GobbableMetricFamily");
      if (proto?.kind !== "bytes") continue;
      // `stored`: the common family goes straight to the store's form (simple-families.ts).
      const simple =
        options.stored && name !== PUSH_TIME && name !== FAILURE_TIME
          ? decodeSimpleFamily(proto.value)
          : undefined;
      if (simple !== undefined) {
        rendered.push(simple);
        pushedAt.set(name, stamp?.kind === "bytes" ? goTimeMs(stamp.value) : 0);
        continue;
      }
      const [family] = decodeDelimitedProtobuf(delimited(proto.value), { utf8: true, codec });
      if (family === undefined) continue;
      if (name === PUSH_TIME || name === FAILURE_TIME) {
        const value = family.metrics[0]?.value ?? 0;
        if (name === PUSH_TIME) pushTime = value;
        else failureTime = value;
        continue;
      }
      families.push(family);
      pushedAt.set(name, stamp?.kind === "bytes" ? goTimeMs(stamp.value) : 0);
    }
    yield {
      labels,
      pushTime,
      failureTime,
      pushedAt: Object.fromEntries(pushedAt),
      families,
      ...(rendered.length > 0 ? { rendered } : {}),
    };
  }
}

/**
 * Whether type `id` of the stream is upstream's `GroupingKeyToMetricGroup` by shape (Go's decoder matches by shape
 * and field name, not by type name): map[string]struct{Labels map[string]string; Metrics map[string]struct{Timestamp,
 * GobbableMetricFamily: GobEncoder}}. Fields other than these are allowed, as Go's decoder ignores them.
 *
 * @throws {GobError} naming the first difference
 */
function checkGroupsType(id: number, types: ReadonlyMap<number, WireType>): void {
  const top = types.get(id);
  if (top?.kind !== "map" || top.key !== GOB_TYPE_ID.STRING)
    throw new GobError(
      `the top-level value is ${describeType(id, types)}, not a map of metric groups by grouping key`,
    );
  const group = types.get(top.elem);
  if (group?.kind !== "struct")
    throw new GobError(`a metric group is ${describeType(top.elem, types)}, not a struct`);
  const field = (name: string) => group.fields.find((f) => f.name === name)?.id;
  const labels = field("Labels");
  const metrics = field("Metrics");
  const labelsType = labels === undefined ? undefined : types.get(labels);
  if (
    labels !== undefined &&
    (labelsType?.kind !== "map" ||
      labelsType.key !== GOB_TYPE_ID.STRING ||
      labelsType.elem !== GOB_TYPE_ID.STRING)
  )
    throw new GobError(`a metric group's Labels is ${describeType(labels, types)}, not a map of strings`);
  const metricsType = metrics === undefined ? undefined : types.get(metrics);
  if (metrics !== undefined) {
    if (metricsType?.kind !== "map" || metricsType.key !== GOB_TYPE_ID.STRING)
      throw new GobError(
        `a metric group's Metrics is ${describeType(metrics, types)}, not a map by family name`,
      );
    const tmf = types.get(metricsType.elem);
    if (tmf?.kind !== "struct")
      throw new GobError(
        `a timestamped metric family is ${describeType(metricsType.elem, types)}, not a struct`,
      );
    for (const name of ["Timestamp", "GobbableMetricFamily"]) {
      const f = tmf.fields.find((x) => x.name === name);
      if (f !== undefined && types.get(f.id)?.kind !== "encoder")
        throw new GobError(
          `a timestamped metric family's ${name} is ${describeType(f.id, types)}, not an encoded value`,
        );
    }
  }
}

function describeType(id: number, types: ReadonlyMap<number, WireType>): string {
  const builtin = ["", "a bool", "an int", "a uint", "a float", "a []byte", "a string"][id];
  if (builtin !== undefined && builtin !== "") return builtin;
  const t = types.get(id);
  return t === undefined ? `undefined type ${id}` : `a ${t.kind}`;
}

/**
 * Writes the groups as upstream's `persist` does, so upstream reads the file back: the same Go types (only the
 * definitions the value needs; Go's decoder matches structs by field name and GobEncoder types by kind), both
 * timestamp gauges in every group with the grouping labels and `instance`, times in UTC.
 */
export async function encodeUpstreamPersistence(groups: readonly EncodableGroup[]): Promise<Buffer> {
  // The type ids 1.5.1's files use.
  const GROUPS = 71;
  const GROUP = 65;
  const LABELS = 66;
  const METRICS = 70;
  const TIMESTAMPED = 67;
  const TIME = 68;
  const FAMILY = 69;
  const { STRING } = GOB_TYPE_ID;
  const gob = new GobWriter();
  gob.define(GROUPS, { map: [STRING, GROUP], name: "GroupingKeyToMetricGroup" });
  gob.define(GROUP, {
    struct: [
      ["Labels", LABELS],
      ["Metrics", METRICS],
    ],
  });
  gob.define(LABELS, { map: [STRING, STRING], name: "map[string]string" });
  gob.define(METRICS, { map: [STRING, TIMESTAMPED], name: "NameToTimestampedMetricFamilyMap" });
  gob.define(TIMESTAMPED, {
    struct: [
      ["Timestamp", TIME],
      ["GobbableMetricFamily", FAMILY],
    ],
  });
  gob.define(TIME, { encoder: "Time" });
  gob.define(FAMILY, { encoder: "GobbableMetricFamily" });
  // Every family not encoded yet, of every group, in one protobuf stream (a stream per family took 1.9 s at 100k
  // series), then each group's in its order.
  const perGroup = groups.map((g) => [
    ...g.families,
    timeGauge(PUSH_TIME, g.labels, g.pushTime),
    timeGauge(FAILURE_TIME, g.labels, g.failureTime),
  ]);
  const structured = perGroup.flat().filter((f): f is MetricFamily => !("proto" in f));
  const all = await protoFamilies(structured);
  let next = 0;
  const encoded = groups.map((g, i) => ({
    g,
    protos: (perGroup[i] ?? []).map((f) => ("proto" in f ? f.proto : all[next++])),
  }));
  gob.value(GROUPS, { singleton: true }, (w) => {
    w.uint(encoded.length);
    for (const { g, protos } of encoded) {
      w.raw(groupingKeyFor(g.labels));
      // MetricGroup: Labels (field 0, omitted when empty as Go omits an empty map), Metrics (field 1).
      const labelNames = Object.keys(g.labels);
      let field = -1;
      if (labelNames.length > 0) {
        w.uint(0 - field);
        field = 0;
        w.uint(labelNames.length);
        for (const k of labelNames) w.string(k).string(g.labels[k] ?? "");
      }
      w.uint(1 - field);
      const names = [...g.families.map((f) => f.name), PUSH_TIME, FAILURE_TIME];
      w.uint(names.length);
      // upstream stamps each timestamp gauge with the push that last set it, or, when only the other kind happened,
      // with that one (processWriteRequest, setPushFailedTimestamp).
      const pushMs = (g.pushTime > 0 ? g.pushTime : g.failureTime) * 1000;
      const failureMs = (g.failureTime > 0 ? g.failureTime : g.pushTime) * 1000;
      names.forEach((name, i) => {
        w.string(name);
        // TimestampedMetricFamily: Timestamp (field 0), GobbableMetricFamily (field 1).
        const ms =
          i < g.families.length ? (g.pushedAt[name] ?? pushMs) : name === PUSH_TIME ? pushMs : failureMs;
        w.uint(1).raw(goTimeBinary(ms));
        w.uint(1).raw(protos[i] ?? Buffer.alloc(0));
        w.uint(0);
      });
      w.uint(0);
    }
  });
  return gob.finish();
}

function stringOf(v: GobValue): string {
  if (v.kind !== "string") throw new GobError(`expected a string, found a ${v.kind}`);
  return v.value;
}

/** One protobuf message as the varint-delimited stream the push parser reads. */
function delimited(message: Buffer): Buffer {
  const prefix: number[] = [];
  let n = message.length;
  while (n >= 0x80) {
    prefix.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  prefix.push(n);
  return Buffer.concat([Buffer.from(prefix), message]);
}

/** Each family's protobuf message alone (proto.Marshal): one delimited stream written, split at its length prefixes. */
async function protoFamilies(families: readonly MetricFamily[]): Promise<Buffer[]> {
  const bytes = await writeDelimitedProtobuf(families);
  const out: Buffer[] = [];
  let at = 0;
  while (at < bytes.length) {
    const { size, next } = readUvarint(bytes, at);
    out.push(bytes.subarray(next, next + size));
    at = next + size;
  }
  return out;
}

/** upstream's newTimestampGauge after sanitizeLabels: grouping labels and `instance`, sorted by name. */
function timeGauge(name: string, grouping: Readonly<Record<string, string>>, seconds: number): MetricFamily {
  const labels = Object.entries(grouping);
  if (!("instance" in grouping)) labels.push(["instance", ""]);
  labels.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    name,
    help: name === PUSH_TIME ? PUSH_TIME_HELP : FAILURE_TIME_HELP,
    type: "gauge",
    metrics: [{ labels, value: seconds }],
  };
}

/**
 * upstream's groupingKeyFor (storage/diskmetricstore.go): label names in byte order, name and value separated by
 * `model.SeparatorByte` (0xff), none at the end. Upstream finds a group by this key, so it must be exact.
 */
function groupingKeyFor(labels: Readonly<Record<string, string>>): Buffer {
  const names = Object.keys(labels).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const parts: Buffer[] = [];
  names.forEach((name, i) => {
    parts.push(Buffer.from(name), SEPARATOR, Buffer.from(labels[name] ?? ""));
    if (i + 1 < names.length) parts.push(SEPARATOR);
  });
  return Buffer.concat(parts);
}

const SEPARATOR = Buffer.from([0xff]);

/** time.Time's MarshalBinary (version 1, UTC), which is its GobEncode. */
function goTimeBinary(ms: number): Buffer {
  const b = Buffer.alloc(15);
  b[0] = 1;
  const seconds = BigInt(Math.floor(ms / 1000));
  b.writeBigInt64BE(seconds + UNIX_TO_INTERNAL, 1);
  b.writeInt32BE(Math.round((ms - Math.floor(ms / 1000) * 1000) * 1e6), 9);
  b.writeInt16BE(-1, 13);
  return b;
}

/** Milliseconds since the epoch of a time.Time's MarshalBinary (versions 1 and 2; the zone does not change the instant). */
function goTimeMs(b: Buffer): number {
  if (b.length < 15 || (b[0] !== 1 && b[0] !== 2)) throw new GobError("a time.Time that does not parse");
  const seconds = b.readBigInt64BE(1) - UNIX_TO_INTERNAL;
  const nanos = b.readInt32BE(9);
  return Number(seconds) * 1000 + Math.floor(nanos / 1e6);
}
