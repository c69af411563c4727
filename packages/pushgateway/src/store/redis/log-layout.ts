import type { GaugeMode } from "../../aggregate/add-family.js";
import type { MetricFamily } from "../../exposition/metric-family.js";
import {
  type KeyedFamily,
  parseRenderedFamily,
  type RenderedFamily,
  storedForm,
} from "../../exposition/rendered-family.js";
import type { GroupingLabels } from "../../grouping-key.js";
import type { PushInvalidity } from "../consistency-check.js";
import type { Group, PersistedGroup } from "../metric-store.js";

/**
 * The Redis layout of the shared store: a replicated log. Every change (push, delete, wipe) is one entry of a Redis
 * stream whose ids are a gap-free sequence (`<seq>-0`); every replica applies the entries in that order to its own
 * in-memory store, so all replicas run the same consistency check against the same state and reach the same result
 * (state-machine replication). A snapshot of the whole store lets a replica start, or catch up after the log was
 * trimmed, without replaying everything. An epoch id tells a replica that Redis lost its data (restarted empty).
 */
export interface RedisKeys {
  /** STRING: random id of this store's lifetime; absent = Redis holds no store (fresh or restarted empty). */
  readonly epoch: string;
  /** STRING: sequence number of the last entry appended (INCR). */
  readonly seq: string;
  /** STREAM: the entries, id `<seq>-0`, one field `op`. */
  readonly log: string;
  /** HASH: `seq` (the last entry the snapshot includes) and `data` (the groups, JSON; see {@link encodeSnapshot}). */
  readonly snapshot: string;
  /**
   * With `--push.group-ttl`, STRING per group (this prefix + the group key) whose Redis expiry (PX) is the group's
   * deadline: its `expired` keyspace event starts the group's expiry.
   */
  readonly alivePrefix: string;
  /** STRING per group (this prefix + the group key), set NX for a few seconds: one replica appends an expiry. */
  readonly expiringPrefix: string;
  /**
   * STRING with a PX of {@link SETTLE_MS}, set when a store is created from a replica's copy: until it expires
   * nothing is appended, and a replica holding a copy further along the same log replaces the store with its own
   * (see {@link SEED_SCRIPT}).
   */
  readonly settling: string;
}

/**
 * How long appends wait after the store was created from a replica's copy (Redis came back empty): long enough for
 * every connected replica to reconnect (at most 1 s apart) and offer a copy further along than the first one.
 */
export const SETTLE_MS = 2000;

/** Every key starts with the prefix; the `{...}` hash tag keeps them in one slot should Redis Cluster be used. */
export function redisKeys(prefix = "pushgateway"): RedisKeys {
  const p = `{${prefix}}`;
  return {
    epoch: `${p}:epoch`,
    seq: `${p}:seq`,
    log: `${p}:log`,
    snapshot: `${p}:snapshot`,
    alivePrefix: `${p}:alive:`,
    expiringPrefix: `${p}:expiring:`,
    settling: `${p}:settling`,
  };
}

/** One change, as written to the log. `origin` names the replica and request that appended it. */
export type LogOp =
  | {
      /**
       * A push as the replica that took it prepared it: the grouping labels applied, every series rendered to its
       * lines and key, and the verdict of the state-free checks. Every replica applies it without parsing, rendering
       * or judging it again (MemoryStore.pushRendered); only the checks against other groups run on each.
       */
      readonly kind: "rendered-push";
      readonly origin: string;
      readonly labels: GroupingLabels;
      readonly replace: boolean;
      /** When the answering replica received the push (milliseconds), so every replica stores the same time. */
      readonly nowMs: number;
      readonly check: boolean;
      readonly invalid?: PushInvalidity | undefined;
      readonly families: readonly KeyedFamily[];
    }
  | {
      /** A push as earlier versions logged it (the parsed families): still applied when read from an older log. */
      readonly kind: "push";
      readonly origin: string;
      readonly labels: GroupingLabels;
      readonly families: readonly MetricFamily[];
      readonly replace: boolean;
      /** When the answering replica received the push (milliseconds), so every replica stores the same time. */
      readonly nowMs: number;
      readonly check: boolean;
    }
  | {
      readonly kind: "delete";
      readonly origin: string;
      readonly labels: GroupingLabels;
      readonly nowMs: number;
    }
  | { readonly kind: "wipe"; readonly origin: string; readonly nowMs: number }
  | {
      /** An aggregating push as sent: each replica adds it in log order (MemoryStore.aggregate), losing none. */
      readonly kind: "aggregate";
      readonly origin: string;
      readonly labels: GroupingLabels;
      readonly nowMs: number;
      readonly check: boolean;
      readonly gauges: GaugeMode;
      readonly families: readonly MetricFamily[];
    }
  | {
      /** A delete by `match[]` selectors: every replica deletes what they select at this place in the log. */
      readonly kind: "delete-matching";
      readonly origin: string;
      readonly match: readonly string[];
      readonly nowMs: number;
    }
  | {
      /** The group's Redis deadline passed: drop it unless a successful push came after `cutoffMs`. */
      readonly kind: "expire";
      readonly origin: string;
      readonly labels: GroupingLabels;
      readonly nowMs: number;
      /** `nowMs` minus the TTL of the replica that appended it, so every replica decides alike. */
      readonly cutoffMs: number;
    };

/** Marks a string that would otherwise read back as a number word (below). */
const STRING_MARK = "\u0000s:";
/** Marks a bigint (JSON has none), should a family carry one (protobuf 64-bit counts). */
const BIGINT_MARK = "\u0000n:";

/**
 * Text that a plain `JSON.stringify` may have written differently from {@link toJson}, or that {@link fromJson}
 * must revive. A NUL matters only at the start of a string (`"\u0000`): series keys hold NULs inside, and every
 * rendered push carries them.
 */
const NEEDS_MARKS = /null|"\\u0000|"NaN"|Infinity"/;

/**
 * JSON with NaN and the infinities as the strings `NaN`, `Infinity`, `-Infinity` (JSON has no such numbers; the
 * persistence file does the same); a string that is one of those words, or starts with the marker, is written with
 * the marker in front so it reads back as a string.
 */
function toJson(value: unknown): string {
  // Fast path: V8's serializer without a replacer is several times faster, and its text is the same whenever nothing
  // needs a mark — no non-finite number (written as null), no bigint (throws), no string that is a number word or
  // starts with NUL (escaped as \u0000 after the quote). Anything that might need one (even a harmless "null") takes the full path.
  let plain: string | undefined;
  try {
    plain = JSON.stringify(value);
  } catch {
    // A bigint: marked below.
  }
  if (plain !== undefined && !NEEDS_MARKS.test(plain)) return plain;
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === "number") return Number.isFinite(v) ? v : String(v);
    if (typeof v === "bigint") return BIGINT_MARK + v.toString();
    if (typeof v === "string" && (isNumberWord(v) || v.startsWith("\u0000"))) return STRING_MARK + v;
    return v;
  });
}

function fromJson(text: string): unknown {
  // Without a marker, a number word or a NUL the reviver would change nothing: skip it (it costs more than the parse).
  if (!NEEDS_MARKS.test(text)) return JSON.parse(text);
  return JSON.parse(text, (_key, v: unknown) => {
    if (typeof v !== "string") return v;
    if (v.startsWith(STRING_MARK)) return v.slice(STRING_MARK.length);
    if (v.startsWith(BIGINT_MARK)) return BigInt(v.slice(BIGINT_MARK.length));
    if (v === "NaN") return Number.NaN;
    if (v === "Infinity") return Number.POSITIVE_INFINITY;
    if (v === "-Infinity") return Number.NEGATIVE_INFINITY;
    return v;
  });
}

function isNumberWord(s: string): boolean {
  return s === "NaN" || s === "Infinity" || s === "-Infinity";
}

/** Encodes an op for the stream's `op` field; a push's families come last (see {@link decodeOp}). */
export function encodeOp(op: LogOp): string {
  if (op.kind !== "push" && op.kind !== "rendered-push" && op.kind !== "aggregate") return toJson(op);
  const { families, ...head } = op;
  return toJson({ ...head, families });
}

const KINDS: readonly string[] = [
  "rendered-push",
  "push",
  "delete",
  "wipe",
  "expire",
  "aggregate",
  "delete-matching",
];

/**
 * Decodes an entry written by {@link encodeOp}. With `families` (the replica that appended a rendered push still
 * holds them) the families part of the text is not parsed again: it is the last member, and `,"families":` cannot
 * occur earlier outside a JSON string (quotes inside strings are escaped).
 *
 * @throws {Error} when the entry is not an op of this format (another program, or a newer version, wrote it)
 */
export function decodeOp(text: string, options: { families?: readonly KeyedFamily[] } = {}): LogOp {
  const cut =
    options.families === undefined || !text.startsWith('{"kind":"rendered-push"')
      ? -1
      : text.indexOf(',"families":');
  const op = fromJson(cut < 0 ? text : `${text.slice(0, cut)}}`) as LogOp | null;
  if (op === null || typeof op !== "object" || !KINDS.includes(op.kind))
    throw new Error(`not a pushgateway log entry (written by a newer version?): ${text.slice(0, 80)}`);
  if (op.kind !== "rendered-push") return op;
  if (cut >= 0 && options.families !== undefined) return { ...op, families: options.families };
  // JSON writes an absent protobuf value inside the array as null.
  const families = op.families.map((f) =>
    f.protoValues === undefined ? f : { ...f, protoValues: f.protoValues.map((v) => v ?? undefined) },
  );
  return { ...op, families };
}

/**
 * The snapshot's `data` field (version 2): the groups with each family as the store holds it, its exposition lines.
 * Writing the lines as they are costs a JSON serialisation; the persistence file's structured shape (version 1)
 * meant parsing every line back first, which at 100k series blocked the writing replica for most of a second every
 * {@link encodeSnapshot} (bench/pushgateway/README.md). Reading parses them back, as restoring a file does.
 */
export function encodeSnapshot(groups: readonly Group[]): string {
  return toJson({
    version: 2,
    groups: groups.map((g) => ({
      labels: g.labels,
      pushTime: g.pushTime,
      failureTime: g.failureTime,
      pushedAt: Object.fromEntries(g.pushedAt),
      families: Array.from(g.families.values(), storedForm),
    })),
  });
}

/**
 * Reads a snapshot written by {@link encodeSnapshot}, or a version 1 one (structured families, as in the
 * persistence file); an absent one is an empty store.
 *
 * @throws {Error} when the data is not a snapshot of this format
 */
export function decodeSnapshot(text: string | null): PersistedGroup[] {
  if (text === null || text === "") return [];
  const doc = fromJson(text) as { version?: unknown; groups?: unknown } | null;
  if (doc === null || typeof doc !== "object" || !Array.isArray(doc.groups))
    throw new Error("not a pushgateway snapshot");
  if (doc.version === undefined) return doc.groups as PersistedGroup[];
  if (doc.version !== 2) throw new Error(`pushgateway snapshot version ${String(doc.version)} is not known`);
  const groups = doc.groups as (Omit<PersistedGroup, "families"> & { families: RenderedFamily[] })[];
  return groups.map((g) => ({ ...g, families: g.families.map(parseRenderedFamily) }));
}

/** The sequence number of a stream entry id (`<seq>-0`). */
export function entrySeq(id: string): number {
  return Number(id.slice(0, id.indexOf("-")));
}

/**
 * Appends one op if the caller's epoch is still the store's and the store is not settling.
 * KEYS: epoch, seq, log, the group's alive key (any key of the prefix for a wipe), settling. ARGV: expected epoch,
 * op, the op's effect on the alive key (`push`: create it with PX ARGV[4] unless it exists, so a new group, even one
 * created by a failed push, has a deadline; a successful push then renews it; `delete`: remove it; `` none).
 * Returns `{1, seq}` once appended, `{0, current epoch or ""}` when the epoch differs, so the caller reloads (another
 * epoch) or re-seeds (none) and retries, `{3, ms}` while the store settles (retry after).
 * INCR + XADD in one script: ids are gap-free and in order. Replicas see the entry by their blocking XREAD.
 */
export const APPEND_SCRIPT = `
local e = redis.call('GET', KEYS[1])
if e ~= ARGV[1] then return {0, e or ''} end
local w = redis.call('PTTL', KEYS[5])
if w > 0 then return {3, w} end
local s = redis.call('INCR', KEYS[2])
redis.call('XADD', KEYS[3], s .. '-0', 'op', ARGV[2])
if ARGV[3] == 'push' then redis.call('SET', KEYS[4], '1', 'PX', ARGV[4], 'NX')
elseif ARGV[3] == 'delete' then redis.call('DEL', KEYS[4]) end
return {1, s}
`;

/**
 * Appends an expire op, once per deadline: unless no other replica started this expiry in the last few seconds
 * (every replica gets the keyspace event), and, when a replica's poll (not Redis's `expired` event) asks, only when
 * the group's alive key is gone (a push since renewed it, or a longer PX was set: nothing to do). After the event the
 * key may already be back: Redis removes an expired key lazily, on the next access, which can be the very append
 * that sets it again (a group's first push creates it); the op's cutoff keeps a group pushed since anyway.
 * KEYS: epoch, seq, log, alive key, expiring key, settling. ARGV: expected epoch, op, `expired` (the event) or
 * `poll`. Returns what {@link APPEND_SCRIPT} returns, or `{2, 0}` when there is nothing to append.
 */
export const EXPIRE_SCRIPT = `
local e = redis.call('GET', KEYS[1])
if e ~= ARGV[1] then return {0, e or ''} end
local w = redis.call('PTTL', KEYS[6])
if w > 0 then return {3, w} end
if ARGV[3] ~= 'expired' and redis.call('EXISTS', KEYS[4]) == 1 then return {2, 0} end
if not redis.call('SET', KEYS[5], '1', 'PX', '5000', 'NX') then return {2, 0} end
local s = redis.call('INCR', KEYS[2])
redis.call('XADD', KEYS[3], s .. '-0', 'op', ARGV[2])
return {1, s}
`;

/**
 * Creates the store from the caller's copy when Redis holds none (first start, or Redis restarted empty), or replaces
 * a store created moments ago from a copy behind the caller's: still settling, nothing appended since, and seeded
 * from the same log (`from`, the epoch the copy followed) at a lower sequence number, or from no log at all (a
 * replica that never had a store). Otherwise the first replica to notice an empty Redis would decide the state,
 * although another one may already have applied writes that were answered (test/redis-chaos.peers.test.ts: Redis
 * back empty under load lost a push when the replica that had not followed it yet came first).
 * KEYS: epoch, seq, log, snapshot, settling. ARGV: new epoch, seq, snapshot data, from (`` none), settle ms.
 * Returns the epoch now in force: the caller's when it created the store, else the one in Redis.
 */
export const SEED_SCRIPT = `
local e = redis.call('GET', KEYS[1])
if e then
  if redis.call('EXISTS', KEYS[5]) == 0 or ARGV[4] == '' then return e end
  local snap = redis.call('HMGET', KEYS[4], 'seq', 'from')
  local cur = redis.call('GET', KEYS[2])
  if snap[1] ~= cur then return e end
  if snap[2] ~= '' and (snap[2] ~= ARGV[4] or tonumber(ARGV[2]) <= tonumber(cur)) then return e end
end
redis.call('DEL', KEYS[3], KEYS[4])
redis.call('SET', KEYS[2], ARGV[2])
redis.call('HSET', KEYS[4], 'seq', ARGV[2], 'data', ARGV[3], 'from', ARGV[4])
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SET', KEYS[5], '1', 'PX', ARGV[5])
return ARGV[1]
`;

/**
 * Stores a newer snapshot and trims the log before it, keeping ARGV[4] entries so a replica slightly behind still
 * catches up from the log. KEYS: epoch, snapshot, log. ARGV: epoch, seq, data, kept entries.
 * Returns 1 when stored, 0 when the epoch changed or a snapshot at least as new exists.
 */
export const SNAPSHOT_SCRIPT = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local cur = tonumber(redis.call('HGET', KEYS[2], 'seq') or '0')
local seq = tonumber(ARGV[2])
if cur >= seq then return 0 end
redis.call('HSET', KEYS[2], 'seq', ARGV[2], 'data', ARGV[3])
local keep = seq - tonumber(ARGV[4])
if keep > 0 then redis.call('XTRIM', KEYS[3], 'MINID', (keep + 1) .. '-0') end
return 1
`;

/** How an op changes its group's alive key (see {@link APPEND_SCRIPT}); absent = not at all (TTL off, wipe). */
export interface AliveEffect {
  readonly kind: "push" | "delete";
  /** The group key. */
  readonly group: string;
  /** The TTL in milliseconds (for `push`). */
  readonly ttlMs: number;
}

/** The KEYS and ARGV of {@link APPEND_SCRIPT}. */
export function appendArgs(
  keys: RedisKeys,
  options: { epoch: string; op: string; alive?: AliveEffect | undefined },
): string[] {
  const { alive } = options;
  return [
    keys.epoch,
    keys.seq,
    keys.log,
    keys.alivePrefix + (alive?.group ?? ""),
    keys.settling,
    options.epoch,
    options.op,
    alive?.kind ?? "",
    String(alive?.ttlMs ?? 0),
  ];
}

/** The KEYS and ARGV of {@link EXPIRE_SCRIPT} for the group `group` (its key), after Redis's event or a poll. */
export function expireArgs(
  keys: RedisKeys,
  options: { epoch: string; op: string; group: string; cause: "expired" | "poll" },
): string[] {
  return [
    keys.epoch,
    keys.seq,
    keys.log,
    keys.alivePrefix + options.group,
    keys.expiringPrefix + options.group,
    keys.settling,
    options.epoch,
    options.op,
    options.cause,
  ];
}

/** The KEYS and ARGV of {@link SEED_SCRIPT}; `from` is the epoch the copy followed (undefined: none). */
export function seedArgs(
  keys: RedisKeys,
  options: { epoch: string; seq: number; data: string; from: string | undefined },
): string[] {
  return [
    keys.epoch,
    keys.seq,
    keys.log,
    keys.snapshot,
    keys.settling,
    options.epoch,
    String(options.seq),
    options.data,
    options.from ?? "",
    String(SETTLE_MS),
  ];
}

/** The KEYS and ARGV of {@link SNAPSHOT_SCRIPT}. */
export function snapshotArgs(
  keys: RedisKeys,
  options: { epoch: string; seq: number; data: string; keep: number },
): string[] {
  return [
    keys.epoch,
    keys.snapshot,
    keys.log,
    options.epoch,
    String(options.seq),
    options.data,
    String(options.keep),
  ];
}

/** What {@link APPEND_SCRIPT} or {@link EXPIRE_SCRIPT} answered, as data. */
export type AppendResult =
  | { readonly kind: "appended"; readonly seq: number }
  | { readonly kind: "other-epoch"; readonly epoch: string | undefined }
  | { readonly kind: "nothing-to-do" }
  | { readonly kind: "settling"; readonly waitMs: number };

/**
 * Reads the script's reply.
 *
 * @throws {Error} for a reply of another shape
 */
export function appendResult(reply: unknown): AppendResult {
  if (!Array.isArray(reply) || reply.length !== 2)
    throw new Error(`unexpected append reply ${String(reply)}`);
  const [ok, value] = reply as [unknown, unknown];
  if (Number(ok) === 1) return { kind: "appended", seq: Number(value) };
  if (Number(ok) === 2) return { kind: "nothing-to-do" };
  if (Number(ok) === 3) return { kind: "settling", waitMs: Number(value) };
  const epoch = String(value ?? "");
  return { kind: "other-epoch", epoch: epoch === "" ? undefined : epoch };
}
