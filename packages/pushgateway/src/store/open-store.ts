import { goPathError } from "@local/go-compat/os-error";
import { PersistenceError } from "../errors.js";
import type { MetricFamily } from "../exposition/metric-family.js";
import type { Log } from "../logger.js";
import { MAX_PASSWORD_FILE_BYTES, readRegularFile } from "../regular-file.js";
import { DiskStore } from "./disk/disk-store.js";
import { loadPersistence, removeLeftovers, writePersistence } from "./disk/persistence.js";
import { MemoryStore, type OwnFamilies } from "./memory-store.js";
import type { MetricStore } from "./metric-store.js";
import { parseRedisUrl, redactRedisUrl } from "./redis/redis-url.js";

/** What the store reads of the configuration (the flags, passed as values: `store/` imports no flags). */
export interface StoreSettings {
  readonly maxGroups: number;
  readonly maxSeries: number;
  readonly utf8Names: boolean;
  /** `--storage.redis-url`; empty for a store of this process only. */
  readonly redisUrl: string;
  readonly redisPasswordFile: string;
  /** `--push.group-ttl` in milliseconds; 0 keeps groups until deleted. */
  readonly groupTtl: number;
  /** `--persistence.file`; empty for memory only. */
  readonly persistenceFile: string;
  readonly persistenceInterval: number;
}

/** A store opened from the configuration. */
export interface OpenedStore {
  readonly store: MetricStore;
  /** The store's own metrics (Redis mode: the replica's lag and link state), exposed with the gateway's. */
  readonly ownFamilies: () => MetricFamily[];
  /** Stops the store's work (persistence schedule, Redis connections), persisting what is pending. */
  close(): Promise<void>;
}

/**
 * Builds the store the flags ask for: in memory, persisted to `--persistence.file` (upstream's DiskMetricStore), or,
 * beyond upstream, shared by replicas on Redis (`--storage.redis-url`).
 *
 * @throws {PersistenceError} when the persistence file or the Redis password file cannot be read
 */
export async function openStore(
  config: StoreSettings,
  deps: { own: OwnFamilies; now: () => number; log: Log; setV8Flags: (flags: string) => void },
): Promise<OpenedStore> {
  const memoryOptions = {
    own: deps.own,
    maxGroups: config.maxGroups,
    maxSeries: config.maxSeries,
    now: deps.now,
    utf8Names: config.utf8Names,
  };
  if (config.redisUrl === "") {
    const memory = new MemoryStore({ ...memoryOptions, groupTtlMs: config.groupTtl });
    if (config.persistenceFile !== "") await removeLeftovers(config.persistenceFile);
    if (config.persistenceFile !== "") {
      // A large file becomes millions of strings that all live on; V8 sized for memory (the launcher's
      // --optimize-for-size) copies them through a small young generation. Off for the load: at 1e6 series 2.8 s
      // instead of 3.1-6.8 s under load, for 40 MB more RSS while loading (bench/pushgateway/README.md). The
      // launcher's fixed 1 MiB semi-spaces too: the young generation may grow while the file loads (at 1e6 series
      // ~70 scavenges and 0.25 s of them instead of ~800 and 0.47 s, for ~20 MiB more RSS after it), and stops
      // growing again once the store serves.
      deps.setV8Flags("--no-optimize-for-size");
      deps.setV8Flags("--semi-space-growth-factor=2");
      try {
        await loadPersistence(config.persistenceFile, (group) => memory.restore([group]), { stored: true });
      } finally {
        deps.setV8Flags("--semi-space-growth-factor=1");
        deps.setV8Flags("--optimize-for-size");
      }
    }
    const store = new DiskStore(memory, {
      file: config.persistenceFile,
      intervalMs: config.persistenceInterval,
      write: writePersistence,
      log: deps.log,
    });
    return { store, ownFamilies: () => [], close: () => store.close() };
  }
  // The launcher sizes V8 for memory (--optimize-for-size: our RSS goal against upstream's single process).
  // A replica applies every replica's pushes, and under that flag its collector shrinks the young generation after
  // each major collection and drops optimised code: three replicas pushed 0.62-0.66x of a single process's
  // throughput with it, 0.85-0.90x without, for 140-190 MiB per replica instead of 100-115 at 100k series
  // (bench/pushgateway/README.md). Upstream has no replicas to hold to a memory figure.
  // The launcher's fixed young generation (--semi-space-growth-factor=1) goes too, for the same reason.
  deps.setV8Flags("--no-optimize-for-size");
  deps.setV8Flags("--semi-space-growth-factor=2");
  let password: string | undefined;
  if (config.redisPasswordFile !== "") {
    try {
      const data = await readRegularFile(config.redisPasswordFile, {
        maxBytes: MAX_PASSWORD_FILE_BYTES,
        what: "--storage.redis-password-file",
      });
      password = data.toString("utf8").replace(/\r?\n$/, "");
    } catch (error) {
      throw new PersistenceError(
        `Cannot read --storage.redis-password-file: ${goPathError(error as NodeJS.ErrnoException)}`,
        {
          cause: error,
        },
      );
    }
  }
  // Loaded only here: ioredis and the replica's modules cost a gateway without Redis about 6 MiB of resident memory.
  const { RedisStore } = await import("./redis/redis-store.js");
  const redis = new RedisStore({
    target: parseRedisUrl(config.redisUrl, password),
    memory: memoryOptions,
    groupTtlMs: config.groupTtl,
    log: deps.log,
  });
  const url = redactRedisUrl(config.redisUrl);
  if (await redis.waitLoaded(5000)) deps.log("info", "following the store in Redis", { url });
  else deps.log("warn", "Redis is not reachable yet; serving, pushes answer 503 until it is", { url });
  return {
    store: redis,
    ownFamilies: () => redis.ownFamilies(),
    close: async () => redis.close(),
  };
}
