import type { RenderedFamily } from "../../exposition/rendered-family.js";
import type { GroupingLabels } from "../../grouping-key.js";
import type { Log } from "../../logger.js";
import type { MemoryStore } from "../memory-store.js";
import type {
  AggregateRequest,
  Group,
  MetricStore,
  PersistedGroup,
  PushRejection,
  PushRequest,
} from "../metric-store.js";

/** Options of {@link DiskStore}. */
export interface DiskStoreOptions {
  /** `--persistence.file`; "" keeps the store in memory only. */
  readonly file: string;
  /** `--persistence.interval` in milliseconds. */
  readonly intervalMs: number;
  /** Writes the groups to the file (persistence.ts, or a fake in tests). */
  readonly write: (file: string, groups: readonly PersistedGroup[]) => Promise<void>;
  readonly log: Log;
}

/**
 * The memory store with upstream's persistence schedule (storage/diskmetricstore.go `loop`): after a change the file
 * is written at most once per interval, and once more on {@link close}. A failed write is logged and retried at the
 * next change or at close.
 */
export class DiskStore implements MetricStore {
  #dirty = false;
  #timer: NodeJS.Timeout | undefined;

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
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    await this.#persist();
  }

  #changed(): void {
    this.#dirty = true;
    if (this.options.file !== "" && this.#timer === undefined)
      this.#timer = setTimeout(() => void this.#persist(), this.options.intervalMs);
  }

  async #persist(): Promise<void> {
    this.#timer = undefined;
    if (!this.#dirty || this.options.file === "") return;
    this.#dirty = false;
    try {
      await this.options.write(this.options.file, this.memory.snapshot());
    } catch (error) {
      this.#dirty = true;
      this.options.log("error", `Error persisting metrics: ${(error as Error).message}`);
    }
  }
}
