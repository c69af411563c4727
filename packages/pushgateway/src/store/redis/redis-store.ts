import { randomUUID } from "node:crypto";
import { StoreUnavailableError } from "../../errors.js";
import type { MetricFamily } from "../../exposition/metric-family.js";
import type { RenderedFamily } from "../../exposition/rendered-family.js";
import { type GroupingLabels, groupKey } from "../../grouping-key.js";
import type { Log } from "../../logger.js";
import {
  type AddedInfBuckets,
  addedInfBuckets,
  MemoryStore,
  type MemoryStoreOptions,
  type PreparedPush,
  preparePush,
} from "../memory-store.js";
import type { Group, MetricStore, PushRejection, PushRequest } from "../metric-store.js";
import { sleep, withDeadline } from "./deadline.js";
import { GroupExpiry } from "./group-expiry.js";
import { followLog } from "./log-follower.js";
import {
  type AliveEffect,
  APPEND_SCRIPT,
  appendArgs,
  appendResult,
  decodeOp,
  EXPIRE_SCRIPT,
  encodeOp,
  entrySeq,
  expireArgs,
  type LogOp,
  type RedisKeys,
  redisKeys,
  SETTLE_MS,
} from "./log-layout.js";
import { type ConnectRedis, connectRedis, type RedisClient, refusedUnsent } from "./redis-client.js";
import type { RedisTarget } from "./redis-url.js";
import { readSnapshot, seedStore, snapshotPeriod, storeBehindCopy, writeSnapshot } from "./snapshots.js";

/** Options of {@link RedisStore}. */
export interface RedisStoreOptions {
  readonly target: RedisTarget;
  /** The options of each replica's cache (own families, limits, clock); its own TTL is not used. */
  readonly memory: MemoryStoreOptions;
  /** `--push.group-ttl` in milliseconds (0 = off): kept by Redis key expiry, see {@link RedisStore}. */
  readonly groupTtlMs?: number;
  readonly log: Log;
  /** Key prefix (several gateways can share one Redis database under different prefixes). */
  readonly prefix?: string;
  /** How often a replica checks Redis even without a new entry (epoch changes, staleness, overdue groups). @default 1000 */
  readonly pollMs?: number;
  /** Entries between snapshots; by default {@link snapshotPeriod} of the store's size. */
  readonly snapshotEvery?: number;
  /** Entries kept in the log behind a snapshot. @default 1000 */
  readonly keepBehindSnapshot?: number;
  /** Opens each connection: ioredis by default; unit tests pass an in-memory Redis. */
  readonly connect?: ConnectRedis;
}

/** A replica also writes a snapshot after this many bytes of its own entries, so large pushes do not pile up. */
const SNAPSHOT_BYTES = 64 * 1024 * 1024;
/** Entries kept in the log behind a snapshot, so a replica slightly behind catches up without a reload. */
const KEEP_BEHIND_SNAPSHOT = 1000;
/** Entries read per XRANGE while catching up. */
const RANGE_COUNT = 200;

/** What an entry of a catch-up's reply is replaced with once applied (see #catchUpOnce). */
const APPLIED_ENTRY: [string, string[]] = ["", []];

/** Waits of 100 ms a write makes at most while the store settles (SETTLE_MS, plus room for a replacement). */
const SETTLE_WAITS = (2 * SETTLE_MS) / 100;

/** How long a read or a readiness check waits for Redis before answering from the cache or failing. */
const READ_WAIT_MS = 2000;

/** A push of this replica waiting for its entry to come back from the log. */
interface Pending {
  /** The push as rendered before it was logged: applied from here, not parsed back from the entry. */
  readonly rendered: PreparedPush["rendered"];
  /** What error texts need to quote its series as pushed (the structured families are not kept: see the type). */
  readonly addedInf: AddedInfBuckets;
  settled: boolean;
  rejection: PushRejection | undefined;
}

/**
 * The shared store of replicas on one Redis (beyond upstream, which runs as a single process). Every change is
 * appended to a log in Redis by a Lua script (atomic: INCR of the sequence, XADD), and every replica applies
 * the log, in order, to its own {@link MemoryStore}: the consistency check, POST/PUT semantics, push and failure times
 * run there, deterministically, on the same state on every replica, so concurrent conflicting pushes on different
 * replicas end in exactly the state one gateway reaches when it receives them in the log's order.
 *
 * Guarantees:
 * - A write is answered only after its entry is in Redis and this replica has applied the log up to it; the answer
 *   is the outcome of that application (200, 400 with the failure time set, 429).
 * - Reads (`refresh` before a scrape, the API, the page) first ask Redis for the sequence number and apply what is
 *   missing, so a scrape on any replica that starts after a write was answered sees that write. Pub/sub and a poll
 *   keep the cache current between reads, so that check is normally one round trip.
 * - Redis unreachable: writes fail with {@link StoreUnavailableError} (503), never a success that is lost; reads
 *   serve the last state applied; `staleness()` says for how long.
 * - Redis back empty (restarted without persistence): the first replica to notice writes its cache back as the new
 *   store (new epoch); the others reload from it.
 * - `--push.group-ttl` uses Redis expiry: each group has an alive key whose PX is its deadline (created by the
 *   group's first push, renewed after each successful one). Its `expired` keyspace event (or, without events, a
 *   poll of groups overdue by this replica's clock) makes a replica append an expire op, once (EXPIRE_SCRIPT); the op
 *   carries its cutoff, so every replica drops the group, or keeps it when a push came since, alike. The cache's own
 *   TTL is off: expiry by each replica's clock on reads would let replicas diverge.
 */
export class RedisStore implements MetricStore {
  readonly #redis: RedisClient;
  /** The blocking reads of the log (XREAD BLOCK holds its connection until an entry comes). */
  readonly #tail: RedisClient;
  /** Redis's `expired` keyspace events, with `--push.group-ttl` only. */
  readonly #sub: RedisClient | undefined;
  #closed = false;
  readonly #keys: RedisKeys;
  readonly #memoryOptions: MemoryStoreOptions;
  readonly #log: Log;
  readonly #now: () => number;
  readonly #replica = randomUUID().slice(0, 8);
  readonly #pending = new Map<string, Pending>();
  readonly #ownPrefix: string;
  readonly #where: string;
  readonly #ttlMs: number;
  readonly #snapshotEvery: number | undefined;
  readonly #keepBehindSnapshot: number;
  /** With `--push.group-ttl`: the groups' deadlines in Redis. */
  readonly #expiry: GroupExpiry | undefined;
  #mem: MemoryStore;
  /** The store's epoch this cache follows; undefined until loaded from Redis. */
  #epoch: string | undefined;
  /** The last log entry applied. */
  #seq = 0;
  #counter = 0;
  #ownBytes = 0;
  #snapshotDue = false;
  /** When this replica last confirmed its cache is current (ms), and whether the last attempt failed. */
  #confirmedAt: number;
  #failing = false;
  /** Why the last connection attempt failed (WRONGPASS, a certificate refused, ...), until one succeeds. */
  #connectError: string | undefined;
  #chain: Promise<void> = Promise.resolve();
  #waiting: Promise<void> | undefined;
  #timer: NodeJS.Timeout;

  constructor(options: RedisStoreOptions) {
    this.#keys = redisKeys(options.prefix);
    this.#memoryOptions = { ...options.memory, groupTtlMs: 0 };
    this.#mem = new MemoryStore(this.#memoryOptions);
    this.#ttlMs = options.groupTtlMs ?? 0;
    this.#snapshotEvery = options.snapshotEvery;
    this.#keepBehindSnapshot = options.keepBehindSnapshot ?? KEEP_BEHIND_SNAPSHOT;
    this.#log = options.log;
    this.#now = options.memory.now ?? Date.now;
    this.#confirmedAt = this.#now();
    this.#ownPrefix = `{"kind":"rendered-push","origin":"${this.#replica}:`;
    const { target } = options;
    this.#where = `${target.tls ? "rediss" : "redis"}://${target.host}:${target.port}/${target.db}`;
    const base = {
      host: target.host,
      port: target.port,
      db: target.db,
      ...(target.username === undefined ? {} : { username: target.username }),
      ...(target.password === undefined ? {} : { password: target.password }),
      ...(target.tls ? { tls: { servername: target.host } } : {}),
      connectTimeout: 2000,
      // Reconnect quickly and forever: a replica recovers by itself when Redis returns.
      retryStrategy: (times: number) => Math.min(100 * times, 1000),
    };
    // Commands fail at once while disconnected (no offline queue, no retries), and after 10 s when Redis hangs (long
    // enough that a busy replica's own event loop does not fail healthy commands); /-/ready and reads wait less.
    const connect = options.connect ?? connectRedis;
    this.#redis = connect({
      ...base,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: 10_000,
    });
    // A read sent while disconnected waits for the connection; one in flight when it drops fails, and is sent again.
    this.#tail = connect({ ...base, maxRetriesPerRequest: 0 });
    this.#tail.on("error", () => undefined);
    this.#sub = this.#ttlMs > 0 ? connect(base) : undefined;
    this.#expiry =
      this.#ttlMs > 0
        ? new GroupExpiry({
            redis: this.#redis,
            keys: this.#keys,
            ttlMs: this.#ttlMs,
            now: this.#now,
            log: this.#log,
            where: this.#where,
            groups: () => this.#mem.groups(),
            group: (key) => this.#mem.group(key),
            appendExpire: (group, key, cause) => {
              const nowMs = this.#now();
              return this.#write(
                {
                  kind: "expire",
                  origin: `${this.#replica}:${++this.#counter}`,
                  labels: group.labels,
                  nowMs,
                  cutoffMs: nowMs - this.#ttlMs,
                },
                { expire: { group: key, cause } },
              );
            },
          })
        : undefined;
    let reported = false;
    this.#redis.on("error", (error: Error) => {
      this.#connectError = error.message;
      if (!reported) this.#log("warn", "Redis connection failed", { url: this.#where, err: error.message });
      reported = true;
    });
    this.#redis.on("ready", () => {
      if (reported) this.#log("info", "Redis connection restored", { url: this.#where });
      reported = false;
      this.#connectError = undefined;
      void this.#expiry?.enableEvents();
      void this.refresh();
    });
    if (this.#sub !== undefined) {
      this.#sub.on("error", () => undefined);
      this.#sub.on("message", (_channel: string, message: string) => this.#expiry?.expiredKey(message));
      // The keyspace channel of expired keys of this database.
      void this.#sub.subscribe(`__keyevent@${target.db}__:expired`).catch(() => undefined);
    }
    void followLog({
      tail: this.#tail,
      log: this.#keys.log,
      seq: () => this.#seq,
      closed: () => this.#closed,
      catchUp: () => this.refresh(),
      logger: this.#log,
      where: this.#where,
    });
    this.#timer = setInterval(() => {
      void this.refresh().then(() => {
        if (!this.#failing) this.#expiry?.expireOverdue();
      });
    }, options.pollMs ?? 1000);
    this.#timer.unref();
  }

  /** Waits (up to `deadlineMs`) for the first load from Redis; false when Redis did not answer in time. */
  async waitLoaded(deadlineMs: number): Promise<boolean> {
    const end = this.#now() + deadlineMs;
    while (this.#epoch === undefined && this.#now() < end) {
      await this.refresh();
      if (this.#epoch === undefined) await sleep(100);
    }
    return this.#epoch !== undefined;
  }

  push(request: PushRequest): Promise<PushRejection | undefined> {
    // Not async itself: an async function keeps its parameters for its whole run, and the structured families of the
    // request (an object per series and label) would live across the round trip to Redis, survive young-generation
    // collections and be promoted; only the rendered push goes on to the append (bench/pushgateway/README.md).
    const origin = `${this.#replica}:${++this.#counter}`;
    // Rendered and judged here, once: the other replicas apply the lines and the verdict (see LogOp).
    const prepared = preparePush(request);
    const pending: Pending = {
      rendered: prepared.rendered,
      addedInf: addedInfBuckets(prepared.sanitized),
      settled: false,
      rejection: undefined,
    };
    const group = groupKey(request.labels);
    const op: LogOp = {
      kind: "rendered-push",
      origin,
      labels: request.labels,
      replace: request.replace,
      nowMs: request.now.getTime(),
      check: request.check,
      invalid: this.#mem.invalidity(prepared, { check: request.check }),
      families: prepared.rendered,
    };
    // Only a new group's first push gives it a deadline here (a successful push renews it below): were a refused push
    // to an existing group to create it, it would bring back the key Redis has just expired and keep the group past
    // its TTL. With a stale cache the group may lack a key: the poll finds it overdue.
    const alive = this.#mem.group(group) === undefined ? this.#aliveEffect("push", group) : undefined;
    return this.#pushPrepared({ op, pending, group, alive });
  }

  async #pushPrepared(push: {
    op: LogOp;
    pending: Pending;
    group: string;
    alive: AliveEffect | undefined;
  }): Promise<PushRejection | undefined> {
    const { op, pending, group } = push;
    this.#pending.set(op.origin, pending);
    try {
      await this.#write(op, { alive: push.alive });
      if (!pending.settled) throw this.#unconfirmed();
      // A successful push renews the group's deadline; should this fail, the old deadline comes first and the expire
      // op, finding the group pushed since, re-arms it (#apply).
      if (pending.rejection === undefined && this.#ttlMs > 0)
        this.#redis.set(this.#keys.alivePrefix + group, "1", "PX", this.#ttlMs).catch(() => undefined);
      return pending.rejection;
    } finally {
      this.#pending.delete(op.origin);
    }
  }

  async delete(labels: GroupingLabels): Promise<void> {
    await this.#write(
      { kind: "delete", origin: `${this.#replica}:${++this.#counter}`, labels, nowMs: this.#now() },
      { alive: this.#aliveEffect("delete", groupKey(labels)) },
    );
  }

  async wipe(): Promise<void> {
    const wiped = this.#mem.groups();
    await this.#write({ kind: "wipe", origin: `${this.#replica}:${++this.#counter}`, nowMs: this.#now() });
    this.#expiry?.forget(wiped);
  }

  families(): RenderedFamily[] {
    return this.#mem.families();
  }

  inconsistency(): string | undefined {
    return this.#mem.inconsistency();
  }

  groups(): Group[] {
    return this.#mem.groups();
  }

  /** Brings the cache up to Redis before a read; when Redis is unreachable the last state applied is served. */
  async refresh(): Promise<void> {
    try {
      // A hung Redis must not hang scrapes: after 2 s the cached state is served (the catch-up goes on).
      await withDeadline(this.#catchUp(), READ_WAIT_MS);
    } catch {
      // Serve what is cached; staleness() reports it and notReady() says why.
    }
  }

  /** Why this replica is not ready (Redis unreachable, store not loaded yet), or undefined when it is. */
  async notReady(): Promise<string | undefined> {
    try {
      await withDeadline(this.#redis.ping(), READ_WAIT_MS);
    } catch (error) {
      return `Redis at ${this.#where} is unreachable: ${this.#reason(error)}`;
    }
    if (this.#epoch === undefined) return `the store has not been loaded from Redis at ${this.#where} yet`;
    return undefined;
  }

  /** Seconds since the cache was last known to match Redis; 0 while it does. */
  staleness(): number {
    return this.#failing || this.#epoch === undefined ? (this.#now() - this.#confirmedAt) / 1000 : 0;
  }

  /** Gauges about the shared store, exposed with the gateway's own metrics. */
  ownFamilies(): MetricFamily[] {
    const gauge = (name: string, help: string, value: number): MetricFamily => ({
      name,
      help,
      type: "gauge",
      metrics: [{ labels: [], value }],
    });
    return [
      gauge(
        "pushgateway_redis_cache_staleness_seconds",
        "Seconds since this replica last confirmed that its cached store matches Redis; 0 while it does.",
        this.staleness(),
      ),
      gauge(
        "pushgateway_redis_up",
        "1 when the last exchange with Redis succeeded, 0 when Redis was unreachable.",
        this.#failing ? 0 : 1,
      ),
      gauge(
        "pushgateway_redis_log_sequence",
        "Sequence number of the last change this replica applied from the Redis log.",
        this.#seq,
      ),
    ];
  }

  /** Disconnects from Redis and stops following. */
  close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#redis.disconnect();
    this.#tail.disconnect();
    this.#sub?.disconnect();
  }

  #aliveEffect(kind: AliveEffect["kind"], group: string): AliveEffect | undefined {
    return this.#ttlMs > 0 ? { kind, group, ttlMs: this.#ttlMs } : undefined;
  }

  /**
   * Appends an op and waits until this replica has applied the log up to it. With `expire` (a group key and why) it
   * goes through EXPIRE_SCRIPT and returns false when there was nothing to append.
   */
  async #write(
    op: LogOp,
    options: { alive?: AliveEffect | undefined; expire?: { group: string; cause: "expired" | "poll" } } = {},
  ): Promise<boolean> {
    const text = encodeOp(op);
    let seq: number | undefined;
    // Disconnected, a command is refused before it is sent (no offline queue): then the change surely was not stored.
    const connected = this.#redis.status === "ready";
    try {
      if (this.#epoch === undefined) await this.#catchUp();
      let settleWaits = 0;
      for (let attempt = 0; attempt < 3 && seq === undefined; ) {
        const epoch = this.#epoch ?? "";
        const reply = appendResult(
          options.expire === undefined
            ? await this.#redis.eval(
                APPEND_SCRIPT,
                5,
                ...appendArgs(this.#keys, { epoch, op: text, alive: options.alive }),
              )
            : await this.#redis.eval(
                EXPIRE_SCRIPT,
                6,
                ...expireArgs(this.#keys, { epoch, op: text, ...options.expire }),
              ),
        );
        if (reply.kind === "nothing-to-do") return false;
        if (reply.kind === "appended") seq = reply.seq;
        else if (reply.kind === "settling" && settleWaits++ < SETTLE_WAITS) {
          // The store was just re-created (Redis came back empty): wait until replicas further along had their say.
          await sleep(Math.min(reply.waitMs, 100));
          // A replica with a copy further along may have replaced the store meanwhile: follow it before appending.
          await this.#catchUp();
        } else {
          // Another epoch (Redis restarted; another replica re-created the store) or none: reload or re-seed, retry.
          // A store still settling after all the waits above counts as an attempt too.
          attempt++;
          await this.#catchUp();
        }
      }
    } catch (error) {
      this.#failing = true;
      if (connected && !refusedUnsent(error))
        throw new StoreUnavailableError(
          `the change may not have been stored: Redis at ${this.#where} did not answer (${this.#reason(error)}); retry`,
        );
      throw new StoreUnavailableError(
        `the change was not stored: Redis at ${this.#where} is unreachable (${this.#reason(error)}); retry when it is back`,
      );
    }
    if (seq === undefined)
      throw new StoreUnavailableError(
        `the change was not stored: the store in Redis at ${this.#where} kept being re-created; retry`,
      );
    const epoch = this.#epoch;
    try {
      await this.#applyOwn({ seq, text, epoch });
      for (let i = 0; i < 100 && this.#seq < seq && this.#epoch === epoch; i++) await this.#catchUp();
    } catch {
      throw this.#unconfirmed();
    }
    if (this.#seq < seq || this.#epoch !== epoch) throw this.#unconfirmed();
    return true;
  }

  /** What went wrong with a command: "not connected" rather than the client's offline-queue wording. */
  #reason(error: unknown): string {
    return this.#redis.status === "ready"
      ? (error as Error).message
      : `not connected (${this.#redis.status}${this.#connectError === undefined ? "" : `: ${this.#connectError}`})`;
  }

  #unconfirmed(): StoreUnavailableError {
    return new StoreUnavailableError(
      `the change was sent to Redis at ${this.#where} but this replica could not confirm it was applied (Redis went away or was emptied); check and retry`,
    );
  }

  /**
   * One catch-up at a time; callers arriving while one waits to start share it (it starts after their call, so it
   * sees what they wrote).
   */
  #catchUp(): Promise<void> {
    if (this.#waiting !== undefined) return this.#waiting;
    const run = this.#chain.then(() => {
      this.#waiting = undefined;
      return this.#catchUpOnce();
    });
    this.#waiting = run;
    this.#chain = run.then(
      () => {
        this.#failing = false;
        this.#confirmedAt = this.#now();
      },
      () => {
        this.#failing = true;
      },
    );
    return run;
  }

  /**
   * After this replica appended entry `seq`: when its copy is at `seq - 1` (the usual case), the entry is the text it
   * just sent, so it is applied without reading it back from Redis; otherwise the log is read up to it.
   */
  #applyOwn(entry: { seq: number; text: string; epoch: string | undefined }): Promise<void> {
    const run = this.#chain.then(async () => {
      if (this.#epoch !== entry.epoch || this.#seq >= entry.seq) return;
      if (this.#seq === entry.seq - 1) this.#apply(entry.seq, entry.text);
      else await this.#catchUpOnce();
    });
    this.#chain = run.catch(() => undefined);
    return run;
  }

  async #catchUpOnce(): Promise<void> {
    // The epoch, the sequence number and the first entries this copy lacks, read atomically in one round trip: a
    // follower that is one or a few entries behind (the usual case) needs nothing more.
    const from = this.#seq + 1;
    const replies = await this.#redis
      .multi()
      .mget(this.#keys.epoch, this.#keys.seq)
      .xrange(this.#keys.log, `${from}-0`, "+", "COUNT", RANGE_COUNT)
      .exec();
    const failed = replies?.find(([error]) => error !== null)?.[0];
    if (replies === null || replies.length !== 2 || failed !== undefined)
      throw failed ?? new Error("the catch-up transaction was aborted");
    type Replies = [[null, [string | null, string | null]], [null, [string, string[]][]]];
    const [[, [epoch, seqText]], [, range]] = replies as Replies;
    if (epoch === null) {
      await this.#seed();
      return;
    }
    let prefetched: [string, string[]][] | undefined = range;
    if (epoch !== this.#epoch) {
      // Redis was emptied and another replica re-created the store: offer this copy if it is further along.
      if (
        this.#epoch !== undefined &&
        (await storeBehindCopy(this.#redis, this.#keys, { epoch: this.#epoch, seq: this.#seq }))
      )
        await this.#seed();
      else await this.#load();
      prefetched = undefined;
    }
    const remote = Number(seqText ?? "0");
    let reloaded = false;
    while (this.#seq < remote) {
      const entries =
        prefetched !== undefined && this.#seq + 1 === from
          ? prefetched
          : ((await this.#redis.xrange(
              this.#keys.log,
              `${this.#seq + 1}-0`,
              `${remote}-0`,
              "COUNT",
              RANGE_COUNT,
            )) as [string, string[]][]);
      prefetched = undefined;
      const first = entries[0];
      if (first === undefined || entrySeq(first[0]) !== this.#seq + 1) {
        // Trimmed behind a snapshot (this replica fell far behind) or re-created: start from the snapshot.
        if (reloaded) throw new Error(`the Redis log has a gap after entry ${this.#seq}`);
        reloaded = true;
        await this.#load();
        continue;
      }
      for (let i = 0; i < entries.length; i++) {
        const [id, fields] = entries[i] as [string, string[]];
        // Dropped from the reply as soon as applied: a follower reads up to 200 entries of ~15 KB at 100k series, and
        // while the reply held them all, every young-generation collection during the batch copied the rest again.
        // Followers spent ~20 % less CPU per entry, three replicas under 20 clients ~12 % less per push
        // (bench/pushgateway/README.md).
        entries[i] = APPLIED_ENTRY;
        this.#apply(entrySeq(id), fields[1] ?? "");
      }
    }
  }

  /** Loads the snapshot (epoch and snapshot read in one transaction) into a fresh cache. */
  async #load(): Promise<void> {
    const { epoch, seq, groups } = await readSnapshot(this.#redis, this.#keys);
    const mem = new MemoryStore(this.#memoryOptions);
    mem.restore(groups);
    this.#mem = mem;
    this.#seq = seq;
    if (this.#epoch !== undefined && this.#epoch !== epoch)
      this.#log("warn", "the store in Redis was re-created; reloaded it", { url: this.#where });
    this.#epoch = epoch;
  }

  /**
   * Redis holds no store: create it from this replica's cache (empty on first start). Or replace one just created
   * from a copy behind this one (#behindThisCopy).
   */
  async #seed(): Promise<void> {
    const fresh = randomUUID();
    const winner = await seedStore(this.#redis, this.#keys, {
      fresh,
      seq: this.#seq,
      groups: this.#epoch === undefined ? [] : this.#mem.groups(),
      from: this.#epoch,
    });
    if (winner === fresh) {
      if (this.#epoch !== undefined)
        this.#log("warn", "Redis came back without the store; wrote this replica's copy back", {
          url: this.#where,
          seq: String(this.#seq),
        });
      this.#epoch = fresh;
      this.#expiry?.rearmAll();
      return;
    }
    await this.#load();
  }

  /** Applies one log entry to the cache; settles this replica's write waiting for it. */
  #apply(seq: number, text: string): void {
    // This replica's own pushes are applied from the families it already parsed (the entry starts with its origin).
    let pending: Pending | undefined;
    if (text.startsWith(this.#ownPrefix)) {
      const end = text.indexOf('"', this.#ownPrefix.length);
      pending = this.#pending.get(`${this.#replica}:${text.slice(this.#ownPrefix.length, end)}`);
    }
    const op = decodeOp(text, pending === undefined ? {} : { families: pending.rendered });
    const now = new Date(op.nowMs);
    if (op.kind === "rendered-push") {
      const rejection = this.#mem.pushRendered(
        {
          labels: op.labels,
          families: op.families,
          replace: op.replace,
          now,
          check: op.check,
          invalid: op.invalid,
        },
        pending === undefined ? {} : { addedInf: pending.addedInf },
      );
      if (pending !== undefined) {
        pending.settled = true;
        pending.rejection = rejection;
      }
    } else if (op.kind === "push") {
      this.#mem.push({ labels: op.labels, families: op.families, replace: op.replace, now, check: op.check });
    } else if (op.kind === "delete") {
      this.#mem.delete(op.labels);
    } else if (op.kind === "expire") {
      const lastMs = this.#mem.expireIdle(op.labels, op.cutoffMs);
      // Pushed since the deadline was set (its renewal was lost): this op's appender sets the deadline again.
      if (lastMs !== undefined && op.origin.startsWith(`${this.#replica}:`))
        this.#expiry?.arm(op.labels, lastMs + this.#ttlMs - this.#now());
    } else {
      this.#mem.wipe();
    }
    this.#seq = seq;
    if (op.origin.startsWith(`${this.#replica}:`)) {
      this.#ownBytes += text.length;
      const period = this.#snapshotEvery ?? snapshotPeriod(this.#mem.seriesCount());
      if ((seq % period === 0 || this.#ownBytes > SNAPSHOT_BYTES) && !this.#snapshotDue) {
        // After the answer to the write that is being applied has gone out, not on its way.
        this.#snapshotDue = true;
        setImmediate(() => this.#snapshot());
      }
    }
  }

  /** Writes the cache, as of the last entry applied, as the snapshot and trims the log behind it. */
  #snapshot(): void {
    this.#snapshotDue = false;
    // Closed meanwhile (shutdown right after the triggering write): nothing to write with, and no warning to log.
    if (this.#redis.status === "end") return;
    this.#ownBytes = 0;
    writeSnapshot(this.#redis, this.#keys, {
      epoch: this.#epoch ?? "",
      seq: this.#seq,
      groups: this.#mem.groups(),
      keep: this.#keepBehindSnapshot,
      log: this.#log,
    });
  }
}
