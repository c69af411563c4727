import { Redis } from "ioredis";
import type { RedisTarget } from "./redis-url.js";

/** The connection options the store sets (ioredis's names). */
export interface RedisConnectOptions {
  readonly host: string;
  readonly port: number;
  readonly db: number;
  readonly username?: string;
  readonly password?: string;
  readonly tls?: { readonly servername: string };
  readonly connectTimeout: number;
  readonly retryStrategy: (times: number) => number;
  readonly enableOfflineQueue?: boolean;
  readonly maxRetriesPerRequest?: number;
  readonly commandTimeout?: number;
}

/** A queued transaction or pipeline: the commands the store queues, then `exec`. */
export interface RedisBatch {
  mget(...keys: string[]): RedisBatch;
  get(key: string): RedisBatch;
  hmget(key: string, ...fields: string[]): RedisBatch;
  exists(key: string): RedisBatch;
  xrange(key: string, start: string, end: string, count: "COUNT", n: number): RedisBatch;
  set(key: string, value: string, px: "PX", ms: number): RedisBatch;
  /** Each command's error or reply; null when the transaction was aborted. */
  exec(): Promise<[Error | null, unknown][] | null>;
}

/**
 * The part of a Redis client the shared store uses (ioredis's names and shapes): the seam through which unit tests
 * give the store an in-memory Redis (test/support/fake-redis.ts) and reach its logic without a server.
 */
export interface RedisClient {
  /** ioredis's connection state: `ready` when commands are sent, `end` once disconnected for good. */
  readonly status: string;
  on(event: "error", listener: (error: Error) => void): unknown;
  on(event: "ready", listener: () => void): unknown;
  on(event: "message", listener: (channel: string, message: string) => void): unknown;
  eval(script: string, numKeys: number, ...args: string[]): Promise<unknown>;
  set(key: string, value: string, px: "PX", ms: number): Promise<unknown>;
  unlink(...keys: string[]): Promise<unknown>;
  ping(): Promise<unknown>;
  multi(): RedisBatch;
  pipeline(): RedisBatch;
  xrange(key: string, start: string, end: string, count: "COUNT", n: number): Promise<[string, string[]][]>;
  xread(
    count: "COUNT",
    n: number,
    block: "BLOCK",
    ms: number,
    streams: "STREAMS",
    key: string,
    id: string,
  ): Promise<unknown>;
  config(op: "GET", name: string): Promise<unknown>;
  config(op: "SET", name: string, value: string): Promise<unknown>;
  subscribe(channel: string): Promise<unknown>;
  disconnect(): void;
}

/** How the store opens a connection; the real one is {@link connectRedis}. */
export type ConnectRedis = (options: RedisConnectOptions) => RedisClient;

/** A real connection (ioredis). */
export function connectRedis(options: RedisConnectOptions): RedisClient {
  // ioredis's overloaded command signatures include these shapes; the interface names only what the store calls.
  return new Redis({ ...options }) as unknown as RedisClient;
}

/** Whether Redis answered the command with an error reply (refused it), rather than the connection failing. */
export function isReplyError(error: unknown): boolean {
  return error instanceof Error && error.name === "ReplyError";
}

/**
 * ioredis refuses a command without sending it when the socket is already gone but its status has not caught up
 * (no offline queue): such a change surely was not stored, like one refused while disconnected.
 */
export function refusedUnsent(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith("Stream isn't writeable");
}

/** The connections of one replica (see {@link openRedisLinks}). */
export interface RedisLinks {
  /** Commands: appends, catch-ups, snapshots, deadlines. Fails at once while disconnected. */
  readonly redis: RedisClient;
  /** The blocking reads of the log (XREAD BLOCK holds its connection until an entry comes). */
  readonly tail: RedisClient;
  /** Redis's `expired` keyspace events, when asked for (`--push.group-ttl`). */
  readonly sub: RedisClient | undefined;
}

/** Opens a replica's connections to `target` (ioredis options), the keyspace-event one only with `subscribe`. */
export function openRedisLinks(
  target: RedisTarget,
  options: { connect?: ConnectRedis | undefined; subscribe: boolean },
): RedisLinks {
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
  const connect = options.connect ?? connectRedis;
  // Commands fail at once while disconnected (no offline queue, no retries), and after 10 s when Redis hangs (long
  // enough that a busy replica's own event loop does not fail healthy commands); /-/ready and reads wait less.
  const redis = connect({
    ...base,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 10_000,
  });
  // A read sent while disconnected waits for the connection; one in flight when it drops fails, and is sent again.
  const tail = connect({ ...base, maxRetriesPerRequest: 0 });
  tail.on("error", () => undefined);
  return { redis, tail, sub: options.subscribe ? connect(base) : undefined };
}
