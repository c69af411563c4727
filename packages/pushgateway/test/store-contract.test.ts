// The storage contract (test/support/store-contract.ts) against the memory store, the persisted store (the real
// persistence file in a temporary directory, reopened as a restart reads it) and the shared store on an in-memory
// Redis (test/support/fake-redis.ts; on a real redis-server: store-contract.peers.test.ts).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Log } from "../src/logger.js";
import { DiskStore } from "../src/store/disk/disk-store.js";
import { readPersistence, writePersistence } from "../src/store/disk/persistence.js";
import { MemoryStore } from "../src/store/memory-store.js";
import { RedisStore } from "../src/store/redis/redis-store.js";
import { FakeRedisServer } from "./support/fake-redis.js";
import { storeContract } from "./support/store-contract.js";

const log: Log = () => undefined;

storeContract("memory", async () => ({ store: new MemoryStore(), close: async () => undefined }), {
  persistent: false,
});

storeContract(
  "persisted",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), "pgw-contract-"));
    const file = join(dir, "pushgateway.data");
    const opened: DiskStore[] = [];
    const disk = (memory: MemoryStore) => {
      const store = new DiskStore(memory, { file, intervalMs: 60_000, write: writePersistence, log });
      opened.push(store);
      return store;
    };
    const first = disk(new MemoryStore());
    return {
      store: first,
      // A restart: the first store writes its file on close, a new one reads it.
      reopen: async () => {
        await first.close();
        const memory = new MemoryStore();
        memory.restore(await readPersistence(file));
        return disk(memory);
      },
      close: async () => {
        for (const s of opened) await s.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
  { persistent: true },
);

storeContract(
  "redis (in-memory Redis)",
  async () => {
    const server = new FakeRedisServer();
    const opened: RedisStore[] = [];
    const replica = async () => {
      const store = new RedisStore({
        target: { host: "fake", port: 6379, db: 0, tls: false, username: undefined, password: undefined },
        memory: {},
        log,
        connect: server.connect,
        pollMs: 50,
      });
      opened.push(store);
      if (!(await store.waitLoaded(2000))) throw new Error("the replica did not load");
      return store;
    };
    return {
      store: await replica(),
      // Another replica joining: it loads the store from the log.
      reopen: replica,
      close: async () => {
        for (const s of opened) s.close();
      },
    };
  },
  { persistent: true },
);
