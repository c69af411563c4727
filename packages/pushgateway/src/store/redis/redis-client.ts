import { Redis } from "ioredis";

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
