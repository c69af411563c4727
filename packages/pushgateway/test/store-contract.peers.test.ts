// The storage contract (test/support/store-contract.ts) against the shared store on a real redis-server (Debian's
// redis-server): each test's store under a key prefix of its own, reopened as another replica joining.
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { after, before } from "node:test";
import type { Log } from "../src/logger.js";
import { RedisStore } from "../src/store/redis/redis-store.js";
import { parseRedisUrl } from "../src/store/redis/redis-url.js";
import { stopAll } from "./support/processes.js";
import { startRedis } from "./support/redis-server.js";
import { storeContract } from "./support/store-contract.js";

const log: Log = () => undefined;
let redis: { child: ChildProcess; port: number; url: string };

before(async () => {
  redis = await startRedis();
});
after(stopAll);

storeContract(
  "redis-server",
  async () => {
    const prefix = `contract-${randomUUID().slice(0, 8)}`;
    const opened: RedisStore[] = [];
    const replica = async () => {
      const store = new RedisStore({
        target: parseRedisUrl(redis.url),
        memory: {},
        log,
        prefix,
        pollMs: 100,
      });
      opened.push(store);
      if (!(await store.waitLoaded(5000))) throw new Error(`the replica did not load from ${redis.url}`);
      return store;
    };
    return {
      store: await replica(),
      reopen: replica,
      close: async () => {
        for (const s of opened) s.close();
      },
    };
  },
  { persistent: true },
);
