import { randomUUID } from "node:crypto";
import type { GroupingLabels } from "../../grouping-key.js";
import type { Log } from "../../logger.js";
import type { AddedInfBuckets } from "../consistency-check.js";
import { MemoryStore, type MemoryStoreOptions } from "../memory-store.js";
import type { PushRejection } from "../metric-store.js";
import type { PreparedPush } from "../prepared-push.js";
import { decodeOp, entrySeq, type RedisKeys } from "./log-layout.js";
import type { RedisClient } from "./redis-client.js";
import { seedStore, storeBehindCopy } from "./seeding.js";
import { readSnapshot, snapshotPeriod, writeSnapshot } from "./snapshots.js";

/** A replica also writes a snapshot after this many bytes of its own entries, so large pushes do not pile up. */
const SNAPSHOT_BYTES = 64 * 1024 * 1024;
/** Entries kept in the log behind a snapshot, so a replica slightly behind catches up without a reload. */
const KEEP_BEHIND_SNAPSHOT = 1000;
/** Entries read per XRANGE while catching up. */
const RANGE_COUNT = 200;

/** What an entry of a catch-up's reply is replaced with once applied (see #catchUpOnce). */
const APPLIED_ENTRY: [string, string[]] = ["", []];

/** A push of this replica waiting for its entry to come back from the log. */
export interface Pending {
  /** The push as rendered before it was logged: applied from here, not parsed back from the entry. */
  readonly rendered: PreparedPush["rendered"];
  /** What error texts need to quote its series as pushed (the structured families are not kept: see the type). */
  readonly addedInf: AddedInfBuckets;
  settled: boolean;
  rejection: PushRejection | undefined;
}

/** Options of {@link Replica}. */
export interface ReplicaOptions {
  readonly redis: RedisClient;
  readonly keys: RedisKeys;
  /** This replica's id: the origin prefix of the entries it appends. */
  readonly id: string;
  readonly memory: MemoryStoreOptions;
  readonly log: Log;
  readonly now: () => number;
  /** The store's URL for messages (no password). */
  readonly where: string;
  /** Entries between snapshots; by default {@link snapshotPeriod} of the store's size. */
  readonly snapshotEvery?: number | undefined;
  /** Entries kept in the log behind a snapshot. @default 1000 */
  readonly keepBehindSnapshot?: number | undefined;
  /** This replica's copy was written back as a new store: every group needs its deadline again. */
  readonly onReseeded?: () => void;
  /** This replica's expire op found the group pushed since its cutoff (last push at `lastMs`): it sets the deadline. */
  readonly onExpiryKept?: (labels: GroupingLabels, lastMs: number) => void;
}

/**
 * This replica's copy of the shared store: a {@link MemoryStore} with the log applied to it, in order, up to `seq`
 * of the store's `epoch`. It catches up with the log (one catch-up at a time), loads the snapshot when the log was
 * trimmed behind it or the store re-created, seeds the store from its copy when Redis holds none, and writes the
 * snapshot every so many entries it appended.
 */
export class Replica {
  readonly #redis: RedisClient;
  readonly #keys: RedisKeys;
  readonly #options: ReplicaOptions;
  readonly #memoryOptions: MemoryStoreOptions;
  readonly #ownPrefix: string;
  readonly #pending = new Map<string, Pending>();
  readonly #outcomes = new Map<string, { settled: boolean; value: unknown }>();
  #mem: MemoryStore;
  /** The store's epoch this copy follows; undefined until loaded from Redis. */
  #epoch: string | undefined;
  /** The last log entry applied. */
  #seq = 0;
  #ownBytes = 0;
  #snapshotDue = false;
  /** When this replica last confirmed its copy is current (ms), and whether the last attempt failed. */
  #confirmedAt: number;
  #failing = false;
  #chain: Promise<void> = Promise.resolve();
  #waiting: Promise<void> | undefined;

  constructor(options: ReplicaOptions) {
    this.#options = options;
    this.#redis = options.redis;
    this.#keys = options.keys;
    this.#memoryOptions = options.memory;
    this.#mem = new MemoryStore(this.#memoryOptions);
    this.#ownPrefix = `{"kind":"rendered-push","origin":"${options.id}:`;
    this.#confirmedAt = options.now();
  }

  /** The copy as of the last entry applied (replaced by a fresh one on each load). */
  get mem(): MemoryStore {
    return this.#mem;
  }

  get epoch(): string | undefined {
    return this.#epoch;
  }

  get seq(): number {
    return this.#seq;
  }

  /** Whether the last exchange with Redis failed. */
  get failing(): boolean {
    return this.#failing;
  }

  set failing(value: boolean) {
    this.#failing = value;
  }

  /** When this copy was last confirmed to match Redis (ms). */
  get confirmedAt(): number {
    return this.#confirmedAt;
  }

  /** Registers a push of this replica under its origin until its entry is applied ({@link Pending} is settled then). */
  expect(origin: string, pending: Pending): void {
    this.#pending.set(origin, pending);
  }

  forget(origin: string): void {
    this.#pending.delete(origin);
  }

  /** Registers an aggregating push or a delete by matcher of this replica: its outcome is set when applied. */
  expectOutcome(origin: string): { settled: boolean; value: unknown } {
    const outcome = { settled: false, value: undefined as unknown };
    this.#outcomes.set(origin, outcome);
    return outcome;
  }

  forgetOutcome(origin: string): void {
    this.#outcomes.delete(origin);
  }

  /**
   * One catch-up at a time; callers arriving while one waits to start share it (it starts after their call, so it
   * sees what they wrote).
   */
  catchUp(): Promise<void> {
    if (this.#waiting !== undefined) return this.#waiting;
    const run = this.#chain.then(() => {
      this.#waiting = undefined;
      return this.#catchUpOnce();
    });
    this.#waiting = run;
    this.#chain = run.then(
      () => {
        this.#failing = false;
        this.#confirmedAt = this.#options.now();
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
  applyOwn(entry: { seq: number; text: string; epoch: string | undefined }): Promise<void> {
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

  /** Loads the snapshot (epoch and snapshot read in one transaction) into a fresh copy. */
  async #load(): Promise<void> {
    const { epoch, seq, groups } = await readSnapshot(this.#redis, this.#keys);
    const mem = new MemoryStore(this.#memoryOptions);
    mem.restore(groups);
    this.#mem = mem;
    this.#seq = seq;
    if (this.#epoch !== undefined && this.#epoch !== epoch)
      this.#options.log("warn", "the store in Redis was re-created; reloaded it", {
        url: this.#options.where,
      });
    this.#epoch = epoch;
  }

  /**
   * Redis holds no store: create it from this replica's copy (empty on first start). Or replace one just created
   * from a copy behind this one (storeBehindCopy).
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
        this.#options.log("warn", "Redis came back without the store; wrote this replica's copy back", {
          url: this.#options.where,
          seq: String(this.#seq),
        });
      this.#epoch = fresh;
      this.#options.onReseeded?.();
      return;
    }
    await this.#load();
  }

  /** Hands the outcome of applying one of this replica's ops to the write waiting for it. */
  #settle(origin: string, value: unknown): void {
    const outcome = this.#outcomes.get(origin);
    if (outcome === undefined) return;
    outcome.settled = true;
    outcome.value = value;
  }

  /** Applies one log entry to the copy; settles this replica's write waiting for it. */
  #apply(seq: number, text: string): void {
    const id = this.#options.id;
    // This replica's own pushes are applied from the families it already parsed (the entry starts with its origin).
    let pending: Pending | undefined;
    if (text.startsWith(this.#ownPrefix)) {
      const end = text.indexOf('"', this.#ownPrefix.length);
      pending = this.#pending.get(`${id}:${text.slice(this.#ownPrefix.length, end)}`);
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
    } else if (op.kind === "aggregate") {
      const { labels, families, check, gauges } = op;
      this.#settle(op.origin, this.#mem.aggregate({ labels, families, now, check, gauges }));
    } else if (op.kind === "delete-matching") {
      this.#settle(op.origin, this.#mem.deleteMatching(op.match));
    } else if (op.kind === "delete") {
      this.#mem.delete(op.labels);
    } else if (op.kind === "expire") {
      const lastMs = this.#mem.expireIdle(op.labels, op.cutoffMs);
      // Pushed since the deadline was set (its renewal was lost): this op's appender sets the deadline again.
      if (lastMs !== undefined && op.origin.startsWith(`${id}:`))
        this.#options.onExpiryKept?.(op.labels, lastMs);
    } else {
      this.#mem.wipe();
    }
    this.#seq = seq;
    if (op.origin.startsWith(`${id}:`)) {
      this.#ownBytes += text.length;
      const period = this.#options.snapshotEvery ?? snapshotPeriod(this.#mem.seriesCount());
      if ((seq % period === 0 || this.#ownBytes > SNAPSHOT_BYTES) && !this.#snapshotDue) {
        // After the answer to the write that is being applied has gone out, not on its way.
        this.#snapshotDue = true;
        setImmediate(() => this.#snapshot());
      }
    }
  }

  /** Writes the copy, as of the last entry applied, as the snapshot and trims the log behind it. */
  #snapshot(): void {
    this.#snapshotDue = false;
    // Closed meanwhile (shutdown right after the triggering write): nothing to write with, and no warning to log.
    if (this.#redis.status === "end") return;
    this.#ownBytes = 0;
    writeSnapshot(this.#redis, this.#keys, {
      epoch: this.#epoch ?? "",
      seq: this.#seq,
      groups: this.#mem.groups(),
      keep: this.#options.keepBehindSnapshot ?? KEEP_BEHIND_SNAPSHOT,
      log: this.#options.log,
    });
  }
}
