import { randomUUID } from "node:crypto";
import { StoreUnavailableError } from "../../errors.js";
import type { MetricFamily } from "../../exposition/metric-family.js";
import type { RenderedFamily } from "../../exposition/rendered-family.js";
import { type GroupingLabels, groupKey } from "../../grouping-key.js";
import type { Log } from "../../logger.js";
import { addedInfBuckets } from "../consistency-check.js";
import type { MemoryStoreOptions } from "../memory-store.js";
import type { AggregateRequest, Group, MetricStore, PushRejection, PushRequest } from "../metric-store.js";
import { preparePush } from "../prepared-push.js";
import { sleep, withDeadline } from "./deadline.js";
import { GroupExpiry } from "./group-expiry.js";
import { appendToLog } from "./log-append.js";
import { followLog } from "./log-follower.js";
import { type AliveEffect, encodeOp, type LogOp, type RedisKeys, redisKeys } from "./log-layout.js";
import { type ConnectRedis, openRedisLinks, type RedisClient, refusedUnsent } from "./redis-client.js";
import type { RedisTarget } from "./redis-url.js";
import { type Pending, Replica } from "./replica.js";

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
  /** Entries between snapshots; by default a period that grows with the store's size (snapshots.ts). */
  readonly snapshotEvery?: number;
  /** Entries kept in the log behind a snapshot. @default 1000 */
  readonly keepBehindSnapshot?: number;
  /** Opens each connection: ioredis by default; unit tests pass an in-memory Redis. */
  readonly connect?: ConnectRedis;
}

/** How long a read or a readiness check waits for Redis before answering from the cache or failing. */
const READ_WAIT_MS = 2000;

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
  readonly #log: Log;
  readonly #now: () => number;
  readonly #id = randomUUID().slice(0, 8);
  readonly #where: string;
  readonly #ttlMs: number;
  /** This replica's copy of the store and its catch-up with the log. */
  readonly #replica: Replica;
  /** With `--push.group-ttl`: the groups' deadlines in Redis. */
  readonly #expiry: GroupExpiry | undefined;
  #counter = 0;
  /** Why the last connection attempt failed (WRONGPASS, a certificate refused, ...), until one succeeds. */
  #connectError: string | undefined;
  #timer: NodeJS.Timeout;

  constructor(options: RedisStoreOptions) {
    this.#keys = redisKeys(options.prefix);
    this.#ttlMs = options.groupTtlMs ?? 0;
    this.#log = options.log;
    this.#now = options.memory.now ?? Date.now;
    const { target } = options;
    this.#where = `${target.tls ? "rediss" : "redis"}://${target.host}:${target.port}/${target.db}`;
    const links = openRedisLinks(target, { connect: options.connect, subscribe: this.#ttlMs > 0 });
    this.#redis = links.redis;
    this.#tail = links.tail;
    this.#sub = links.sub;
    this.#replica = new Replica({
      redis: this.#redis,
      keys: this.#keys,
      id: this.#id,
      // The cache's own TTL is off: expiry by each replica's clock on reads would let replicas diverge.
      memory: { ...options.memory, groupTtlMs: 0 },
      log: this.#log,
      now: this.#now,
      where: this.#where,
      snapshotEvery: options.snapshotEvery,
      keepBehindSnapshot: options.keepBehindSnapshot,
      onReseeded: () => this.#expiry?.rearmAll(),
      onExpiryKept: (labels, lastMs) => this.#expiry?.arm(labels, lastMs + this.#ttlMs - this.#now()),
    });
    this.#expiry =
      this.#ttlMs > 0
        ? new GroupExpiry({
            redis: this.#redis,
            keys: this.#keys,
            ttlMs: this.#ttlMs,
            now: this.#now,
            log: this.#log,
            where: this.#where,
            groups: () => this.#replica.mem.groups(),
            group: (key) => this.#replica.mem.group(key),
            appendExpire: (group, key, cause) => {
              const nowMs = this.#now();
              return this.#write(
                {
                  kind: "expire",
                  origin: this.#origin(),
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
      seq: () => this.#replica.seq,
      closed: () => this.#closed,
      catchUp: () => this.refresh(),
      logger: this.#log,
      where: this.#where,
    });
    this.#timer = setInterval(() => {
      void this.refresh().then(() => {
        if (!this.#replica.failing) this.#expiry?.expireOverdue();
      });
    }, options.pollMs ?? 1000);
    this.#timer.unref();
  }

  /** Waits (up to `deadlineMs`) for the first load from Redis; false when Redis did not answer in time. */
  async waitLoaded(deadlineMs: number): Promise<boolean> {
    const end = this.#now() + deadlineMs;
    while (this.#replica.epoch === undefined && this.#now() < end) {
      await this.refresh();
      if (this.#replica.epoch === undefined) await sleep(100);
    }
    return this.#replica.epoch !== undefined;
  }

  push(request: PushRequest): Promise<PushRejection | undefined> {
    // Not async itself: an async function keeps its parameters for its whole run, and the structured families of the
    // request (an object per series and label) would live across the round trip to Redis, survive young-generation
    // collections and be promoted; only the rendered push goes on to the append (bench/pushgateway/README.md).
    const origin = this.#origin();
    // Rendered and judged here, once: the other replicas apply the lines and the verdict (see LogOp).
    const prepared = preparePush(request);
    const pending: Pending = {
      rendered: prepared.rendered,
      addedInf: addedInfBuckets(prepared.sanitized),
      settled: false,
      rejection: undefined,
    };
    const mem = this.#replica.mem;
    const group = groupKey(request.labels);
    const op: LogOp = {
      kind: "rendered-push",
      origin,
      labels: request.labels,
      replace: request.replace,
      nowMs: request.now.getTime(),
      check: request.check,
      invalid: mem.invalidity(prepared, { check: request.check }),
      families: prepared.rendered,
    };
    // Only a new group's first push gives it a deadline here (a successful push renews it below): were a refused push
    // to an existing group to create it, it would bring back the key Redis has just expired and keep the group past
    // its TTL. With a stale cache the group may lack a key: the poll finds it overdue.
    const alive = mem.group(group) === undefined ? this.#aliveEffect("push", group) : undefined;
    return this.#pushPrepared({ op, pending, group, alive });
  }

  async #pushPrepared(push: {
    op: LogOp;
    pending: Pending;
    group: string;
    alive: AliveEffect | undefined;
  }): Promise<PushRejection | undefined> {
    const { op, pending, group } = push;
    this.#replica.expect(op.origin, pending);
    try {
      await this.#write(op, { alive: push.alive });
      if (!pending.settled) throw this.#unconfirmed();
      // A successful push renews the group's deadline; should this fail, the old deadline comes first and the expire
      // op, finding the group pushed since, re-arms it (Replica's apply).
      if (pending.rejection === undefined && this.#ttlMs > 0)
        this.#redis.set(this.#keys.alivePrefix + group, "1", "PX", this.#ttlMs).catch(() => undefined);
      return pending.rejection;
    } finally {
      this.#replica.forget(op.origin);
    }
  }

  async delete(labels: GroupingLabels): Promise<void> {
    await this.#write(
      { kind: "delete", origin: this.#origin(), labels, nowMs: this.#now() },
      { alive: this.#aliveEffect("delete", groupKey(labels)) },
    );
  }

  async aggregate(request: AggregateRequest): Promise<PushRejection | undefined> {
    const { labels, families, check, gauges } = request;
    const origin = this.#origin();
    const op: LogOp = {
      kind: "aggregate",
      origin,
      labels,
      nowMs: request.now.getTime(),
      check,
      gauges,
      families,
    };
    const group = groupKey(labels);
    const alive = this.#replica.mem.group(group) === undefined ? this.#aliveEffect("push", group) : undefined;
    const rejection = (await this.#writeForOutcome(op, { alive })) as PushRejection | undefined;
    // Renewed as after a push (#pushPrepared).
    if (rejection === undefined && this.#ttlMs > 0)
      this.#redis.set(this.#keys.alivePrefix + group, "1", "PX", this.#ttlMs).catch(() => undefined);
    return rejection;
  }

  async deleteMatching(match: readonly string[]): Promise<GroupingLabels[]> {
    const op: LogOp = { kind: "delete-matching", origin: this.#origin(), match, nowMs: this.#now() };
    // The deleted groups' deadlines are left to lapse: an expire op for a group that is gone does nothing.
    return (await this.#writeForOutcome(op, {})) as GroupingLabels[];
  }

  /** Appends an op and returns what applying it on this replica gave (Replica's apply settles it). */
  async #writeForOutcome(op: LogOp, options: { alive?: AliveEffect | undefined }): Promise<unknown> {
    const outcome = this.#replica.expectOutcome(op.origin);
    try {
      await this.#write(op, options);
      if (!outcome.settled) throw this.#unconfirmed();
      return outcome.value;
    } finally {
      this.#replica.forgetOutcome(op.origin);
    }
  }

  async wipe(): Promise<void> {
    const wiped = this.#replica.mem.groups();
    await this.#write({ kind: "wipe", origin: this.#origin(), nowMs: this.#now() });
    this.#expiry?.forget(wiped);
  }

  families(): RenderedFamily[] {
    return this.#replica.mem.families();
  }

  inconsistency(): string | undefined {
    return this.#replica.mem.inconsistency();
  }

  groups(): Group[] {
    return this.#replica.mem.groups();
  }

  /** Brings the cache up to Redis before a read; when Redis is unreachable the last state applied is served. */
  async refresh(): Promise<void> {
    try {
      // A hung Redis must not hang scrapes: after 2 s the cached state is served (the catch-up goes on).
      await withDeadline(this.#replica.catchUp(), READ_WAIT_MS);
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
    if (this.#replica.epoch === undefined)
      return `the store has not been loaded from Redis at ${this.#where} yet`;
    return undefined;
  }

  /** Seconds since the cache was last known to match Redis; 0 while it does. */
  staleness(): number {
    const replica = this.#replica;
    return replica.failing || replica.epoch === undefined ? (this.#now() - replica.confirmedAt) / 1000 : 0;
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
        this.#replica.failing ? 0 : 1,
      ),
      gauge(
        "pushgateway_redis_log_sequence",
        "Sequence number of the last change this replica applied from the Redis log.",
        this.#replica.seq,
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

  /** The origin of this replica's next entry: its id and a counter, unique across replicas. */
  #origin(): string {
    return `${this.#id}:${++this.#counter}`;
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
    const replica = this.#replica;
    const text = encodeOp(op);
    let seq: number | "nothing-to-do" | undefined;
    // Disconnected, a command is refused before it is sent (no offline queue): then the change surely was not stored.
    const connected = this.#redis.status === "ready";
    try {
      seq = await appendToLog(this.#redis, this.#keys, { replica, text, ...options });
    } catch (error) {
      replica.failing = true;
      if (connected && !refusedUnsent(error))
        throw new StoreUnavailableError(
          `the change may not have been stored: Redis at ${this.#where} did not answer (${this.#reason(error)}); retry`,
        );
      throw new StoreUnavailableError(
        `the change was not stored: Redis at ${this.#where} is unreachable (${this.#reason(error)}); retry when it is back`,
      );
    }
    if (seq === "nothing-to-do") return false;
    if (seq === undefined)
      throw new StoreUnavailableError(
        `the change was not stored: the store in Redis at ${this.#where} kept being re-created; retry`,
      );
    const epoch = replica.epoch;
    try {
      await replica.applyOwn({ seq, text, epoch });
      for (let i = 0; i < 100 && replica.seq < seq && replica.epoch === epoch; i++) await replica.catchUp();
    } catch {
      throw this.#unconfirmed();
    }
    if (replica.seq < seq || replica.epoch !== epoch) throw this.#unconfirmed();
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
}
