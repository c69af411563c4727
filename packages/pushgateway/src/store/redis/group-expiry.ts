import { type GroupingLabels, groupKey } from "../../grouping-key.js";
import type { Log } from "../../logger.js";
import { type Group, lastPushMs } from "../metric-store.js";
import type { RedisKeys } from "./log-layout.js";
import type { RedisClient } from "./redis-client.js";

/**
 * A group this long past its deadline by this replica's clock is checked even without a keyspace event (events
 * off, missed while disconnected, or the alive key lost with a Redis that came back empty).
 */
const EXPIRY_GRACE_MS = 1000;

/**
 * `--push.group-ttl` on the shared store: each group has an alive key whose PX is its deadline (created by the
 * group's first push, renewed after each successful one). Its `expired` keyspace event (or, without events, a poll
 * of groups overdue by this replica's clock) makes this replica append an expire op, once (EXPIRE_SCRIPT); the op
 * carries its cutoff, so every replica drops the group, or keeps it when a push came since, alike.
 */
export class GroupExpiry {
  readonly #redis: RedisClient;
  readonly #keys: RedisKeys;
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #log: Log;
  readonly #where: string;
  readonly #groups: () => Group[];
  readonly #group: (key: string) => Group | undefined;
  readonly #appendExpire: (group: Group, key: string, cause: "expired" | "poll") => Promise<unknown>;
  /** Groups whose expiry this replica is appending now. */
  readonly #expiring = new Set<string>();

  constructor(options: {
    redis: RedisClient;
    keys: RedisKeys;
    ttlMs: number;
    now: () => number;
    log: Log;
    where: string;
    /** The replica's groups now, and one by key. */
    groups: () => Group[];
    group: (key: string) => Group | undefined;
    /** Appends the group's expire op through EXPIRE_SCRIPT and waits until it is applied. */
    appendExpire: (group: Group, key: string, cause: "expired" | "poll") => Promise<unknown>;
  }) {
    this.#redis = options.redis;
    this.#keys = options.keys;
    this.#ttlMs = options.ttlMs;
    this.#now = options.now;
    this.#log = options.log;
    this.#where = options.where;
    this.#groups = options.groups;
    this.#group = options.group;
    this.#appendExpire = options.appendExpire;
  }

  /** Sets a group's deadline `ms` from now (its alive key's PX); a failure leaves the old one, which the op corrects. */
  arm(labels: GroupingLabels, ms: number): void {
    this.#redis
      .set(this.#keys.alivePrefix + groupKey(labels), "1", "PX", Math.max(1, Math.round(ms)))
      .catch(() => undefined);
  }

  /** Deadlines of wiped groups would otherwise cut short those of groups pushed again under the same labels. */
  forget(groups: readonly Group[]): void {
    const alive = groups.map((g) => this.#keys.alivePrefix + groupKey(g.labels));
    for (let i = 0; i < alive.length; i += 1000)
      this.#redis.unlink(...alive.slice(i, i + 1000)).catch(() => undefined);
  }

  /** Asks Redis for `expired` keyspace events (E: keyevent channel, x: expired), keeping the flags already set. */
  async enableEvents(): Promise<void> {
    try {
      const [, flags = ""] = (await this.#redis.config("GET", "notify-keyspace-events")) as string[];
      const has = (f: string) => flags.includes(f);
      if (has("E") && (has("x") || has("A"))) return;
      await this.#redis.config(
        "SET",
        "notify-keyspace-events",
        `${flags}${has("E") ? "" : "E"}${has("x") ? "" : "x"}`,
      );
    } catch (error) {
      this.#log(
        "warn",
        "cannot enable expired-key events in Redis (CONFIG SET notify-keyspace-events Ex); groups expire by a poll each second instead, set it on the server for exact deadlines",
        { url: this.#where, err: (error as Error).message },
      );
    }
  }

  /** An expired key named in a keyspace event: when it is a group's alive key, that group's expiry. */
  expiredKey(key: string): void {
    if (key.startsWith(this.#keys.alivePrefix))
      void this.expire(key.slice(this.#keys.alivePrefix.length), "expired");
  }

  /** The group's alive key expired (or, by the poll, it looks overdue): append its expire op. */
  async expire(key: string, cause: "expired" | "poll"): Promise<void> {
    const group = this.#group(key);
    if (group === undefined || this.#expiring.has(key)) return;
    this.#expiring.add(key);
    try {
      await this.#appendExpire(group, key, cause);
    } catch {
      // Redis went away: the poll tries again when it is back.
    } finally {
      this.#expiring.delete(key);
    }
  }

  /** The backstop of the keyspace events: groups past their deadline by this replica's clock. */
  expireOverdue(): void {
    const cutoff = this.#now() - this.#ttlMs - EXPIRY_GRACE_MS;
    for (const group of this.#groups()) {
      if (lastPushMs(group) < cutoff) void this.expire(groupKey(group.labels), "poll");
    }
  }

  /** Redis came back empty: the deadlines went with it; set them again from the push times. */
  rearmAll(): void {
    const pipeline = this.#redis.pipeline();
    for (const group of this.#groups()) {
      const left = Math.max(1, Math.round(lastPushMs(group) + this.#ttlMs - this.#now()));
      pipeline.set(this.#keys.alivePrefix + groupKey(group.labels), "1", "PX", left);
    }
    pipeline.exec().catch(() => undefined);
  }
}
