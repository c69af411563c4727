import type { RenderedFamily } from "../../exposition/rendered-family.js";
import type { GroupingLabels } from "../../grouping-key.js";
import type { Log } from "../../logger.js";
import type { MemoryStore } from "../memory-store.js";
import type { AggregateRequest, Group, MetricStore, PushRejection, PushRequest } from "../metric-store.js";

/** Options of {@link DiskStore}. */
export interface DiskStoreOptions {
  /** `--persistence.file`; "" keeps the store in memory only. */
  readonly file: string;
  /** `--persistence.interval` in milliseconds. */
  readonly intervalMs: number;
  /** Writes the groups to the file (persistence.ts, or a fake in tests). */
  readonly write: (file: string, groups: readonly Group[]) => Promise<void>;
  readonly log: Log;
}

/**
 * The memory store with upstream's persistence schedule (storage/diskmetricstore.go `loop`): after a change the file
 * is written at most once per interval, and once more on {@link close}. A failed write is logged and retried at the
 * next change or at close.
 */
export class DiskStore implements MetricStore {
  #dirty = false;
  /** Changes so far: a write that ends with more than it started with schedules the next one. */
  #changes = 0;
  #closed = false;
  /** Whether the interval's write is under way (changes then wait for it to end, see #scheduled). */
  #inFlight = false;
  #timer: NodeJS.Timeout | undefined;
  /** The write under way, if any: one at a time. */
  #writing: Promise<void> = Promise.resolve();

  private readonly memory: MemoryStore;
  private readonly options: DiskStoreOptions;

  constructor(memory: MemoryStore, options: DiskStoreOptions) {
    this.memory = memory;
    this.options = options;
  }

  push(request: PushRequest): PushRejection | undefined {
    const rejection = this.memory.push(request);
    // A rejected push still changes the group's failure time, which upstream persists too.
    this.#changed();
    return rejection;
  }

  delete(labels: GroupingLabels): void {
    this.memory.delete(labels);
    this.#changed();
  }

  wipe(): void {
    this.memory.wipe();
    this.#changed();
  }

  aggregate(request: AggregateRequest): PushRejection | undefined {
    const rejection = this.memory.aggregate(request);
    // An aggregating push that did not fit changed nothing; any other outcome changed the group.
    if (rejection?.kind !== "aggregation") this.#changed();
    return rejection;
  }

  deleteMatching(match: readonly string[]): GroupingLabels[] {
    const deleted = this.memory.deleteMatching(match);
    if (deleted.length > 0) this.#changed();
    return deleted;
  }

  families(): RenderedFamily[] {
    return this.memory.families();
  }

  inconsistency(): string | undefined {
    return this.memory.inconsistency();
  }

  groups(): Group[] {
    return this.memory.groups();
  }

  /** Stops the schedule and writes the file once more when anything changed since the last write. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    // A write under way finishes first; then whatever changed since is written.
    await this.#writing;
    await this.#persist();
  }

  #changed(): void {
    this.#dirty = true;
    this.#changes++;
    if (this.options.file !== "" && this.#timer === undefined && !this.#closed && !this.#inFlight)
      this.#timer = setTimeout(() => void this.#scheduled(), this.options.intervalMs);
  }

  /**
   * The interval's write. It runs off the event loop and may outlast the interval (1e6 series): changes during it
   * are written by the next one, an interval after this one started, or at once when that time has passed.
   */
  async #scheduled(): Promise<void> {
    this.#timer = undefined;
    const started = Date.now();
    const changes = this.#changes;
    this.#inFlight = true;
    this.#writing = this.#persist();
    await this.#writing;
    this.#inFlight = false;
    // A failed write is retried at the next change or on close, as before; changes made during it get their write.
    if (this.#changes !== changes && !this.#closed && this.#timer === undefined)
      this.#timer = setTimeout(
        () => void this.#scheduled(),
        Math.max(0, this.options.intervalMs - (Date.now() - started)),
      );
  }

  async #persist(): Promise<void> {
    if (!this.#dirty || this.options.file === "") return;
    this.#dirty = false;
    try {
      await this.options.write(this.options.file, this.memory.groups());
    } catch (error) {
      this.#dirty = true;
      this.options.log("error", `Error persisting metrics: ${(error as Error).message}`);
    }
  }
}
