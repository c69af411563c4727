// An in-memory Redis behind the store's client seam (src/store/redis/redis-client.ts), so `npm test` reaches
// RedisStore's logic without a server: strings with PX expiry, hashes, one stream per key with blocking reads,
// MULTI and pipelines, and the four Lua scripts of src/store/redis-log.ts run as JavaScript that does what each
// script's Redis calls do. The scripts themselves run on a real Redis in redis-scripts.peers.test.ts.

import {
  APPEND_SCRIPT,
  EXPIRE_SCRIPT,
  entrySeq,
  SEED_SCRIPT,
  SNAPSHOT_SCRIPT,
} from "../../src/store/redis/log-layout.js";
import type { RedisBatch, RedisClient, RedisConnectOptions } from "../../src/store/redis/redis-client.js";

type Entry = [string, string[]];

/** The shared state all connections of one fake server see. */
export class FakeRedisServer {
  readonly #strings = new Map<string, { value: string; expiresAt: number | undefined }>();
  readonly #hashes = new Map<string, Map<string, string>>();
  readonly #streams = new Map<string, Entry[]>();
  readonly #clients = new Set<FakeRedisClient>();
  readonly #appended = new Set<() => void>();
  #down = false;
  /** Commands run, by name (`eval` by script: `eval:append`, ...), for tests that count round trips. */
  readonly calls = new Map<string, number>();

  /** The seam's connect function: a new connection to this server. */
  readonly connect = (_options: RedisConnectOptions): RedisClient => {
    const client = new FakeRedisClient(this);
    this.#clients.add(client);
    return client;
  };

  get down(): boolean {
    return this.#down;
  }

  /** Redis unreachable (true) or back (false): commands fail while down; clients emit `ready` when it is back. */
  setDown(down: boolean): void {
    this.#down = down;
    for (const c of this.#clients) c.serverChanged();
  }

  /** Redis restarted without persistence: everything gone. */
  flushAll(): void {
    this.#strings.clear();
    this.#hashes.clear();
    this.#streams.clear();
  }

  count(name: string): void {
    this.calls.set(name, (this.calls.get(name) ?? 0) + 1);
  }

  get(key: string): string | null {
    const s = this.#strings.get(key);
    if (s === undefined) return null;
    if (s.expiresAt !== undefined && s.expiresAt <= Date.now()) {
      this.#strings.delete(key);
      return null;
    }
    return s.value;
  }

  set(key: string, value: string, options: { px?: number; nx?: boolean } = {}): boolean {
    if (options.nx && this.get(key) !== null) return false;
    this.#strings.set(key, {
      value,
      expiresAt: options.px === undefined ? undefined : Date.now() + options.px,
    });
    return true;
  }

  pttl(key: string): number {
    if (this.get(key) === null) return -2;
    const at = this.#strings.get(key)?.expiresAt;
    return at === undefined ? -1 : at - Date.now();
  }

  del(...keys: string[]): number {
    let n = 0;
    for (const k of keys)
      if (this.#strings.delete(k) || this.#hashes.delete(k) || this.#streams.delete(k)) n++;
    return n;
  }

  exists(key: string): number {
    return this.get(key) !== null || this.#hashes.has(key) || this.#streams.has(key) ? 1 : 0;
  }

  incr(key: string): number {
    const v = Number(this.get(key) ?? "0") + 1;
    this.set(key, String(v));
    return v;
  }

  hmget(key: string, fields: string[]): (string | null)[] {
    const h = this.#hashes.get(key);
    return fields.map((f) => h?.get(f) ?? null);
  }

  hset(key: string, pairs: [string, string][]): void {
    const h = this.#hashes.get(key) ?? new Map<string, string>();
    for (const [f, v] of pairs) h.set(f, v);
    this.#hashes.set(key, h);
  }

  xadd(key: string, id: string, fields: string[]): void {
    const s = this.#streams.get(key) ?? [];
    s.push([id, fields]);
    this.#streams.set(key, s);
    for (const wake of [...this.#appended]) wake();
  }

  xrange(key: string, start: string, end: string, count: number): Entry[] {
    const from = start === "-" ? 0 : entrySeq(start);
    const to = end === "+" ? Number.POSITIVE_INFINITY : entrySeq(end);
    return (this.#streams.get(key) ?? [])
      .filter(([id]) => entrySeq(id) >= from && entrySeq(id) <= to)
      .slice(0, count);
  }

  xtrimMinId(key: string, minId: string): void {
    const s = this.#streams.get(key);
    if (s !== undefined)
      this.#streams.set(
        key,
        s.filter(([id]) => entrySeq(id) >= entrySeq(minId)),
      );
  }

  /** The entries of a stream, for tests that look at the log. */
  stream(key: string): readonly Entry[] {
    return this.#streams.get(key) ?? [];
  }

  /** Ends every blocking read now (a connection closed). */
  wakeReaders(): void {
    for (const wake of [...this.#appended]) wake();
  }

  /** XREAD BLOCK: entries after `id`, waiting up to `ms` for one. */
  async xread(key: string, id: string, ms: number): Promise<unknown> {
    const after = () =>
      (this.#streams.get(key) ?? []).filter(([i]) => entrySeq(i) > entrySeq(id)).slice(0, 1);
    let found = after();
    if (found.length === 0) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.#appended.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(wake, ms);
        this.#appended.add(wake);
      });
      found = after();
    }
    return found.length === 0 ? null : [[key, found]];
  }

  /** The scripts of src/store/redis-log.ts, each as the Redis calls it makes. */
  evalScript(script: string, keys: string[], argv: string[]): unknown {
    const k = (i: number) => keys[i - 1] ?? "";
    const a = (i: number) => argv[i - 1] ?? "";
    if (script === APPEND_SCRIPT) {
      this.count("eval:append");
      const e = this.get(k(1));
      if (e !== a(1)) return [0, e ?? ""];
      const w = this.pttl(k(5));
      if (w > 0) return [3, w];
      const s = this.incr(k(2));
      this.xadd(k(3), `${s}-0`, ["op", a(2)]);
      if (a(3) === "push") this.set(k(4), "1", { px: Number(a(4)), nx: true });
      else if (a(3) === "delete") this.del(k(4));
      return [1, s];
    }
    if (script === EXPIRE_SCRIPT) {
      this.count("eval:expire");
      const e = this.get(k(1));
      if (e !== a(1)) return [0, e ?? ""];
      const w = this.pttl(k(6));
      if (w > 0) return [3, w];
      if (a(3) !== "expired" && this.exists(k(4)) === 1) return [2, 0];
      if (!this.set(k(5), "1", { px: 5000, nx: true })) return [2, 0];
      const s = this.incr(k(2));
      this.xadd(k(3), `${s}-0`, ["op", a(2)]);
      return [1, s];
    }
    if (script === SEED_SCRIPT) {
      this.count("eval:seed");
      const e = this.get(k(1));
      if (e !== null) {
        if (this.exists(k(5)) === 0 || a(4) === "") return e;
        const [snapSeq, snapFrom] = this.hmget(k(4), ["seq", "from"]);
        const cur = this.get(k(2));
        if (snapSeq !== cur) return e;
        if (snapFrom !== "" && (snapFrom !== a(4) || Number(a(2)) <= Number(cur))) return e;
      }
      this.del(k(3), k(4));
      this.set(k(2), a(2));
      this.hset(k(4), [
        ["seq", a(2)],
        ["data", a(3)],
        ["from", a(4)],
      ]);
      this.set(k(1), a(1));
      this.set(k(5), "1", { px: Number(a(5)) });
      return a(1);
    }
    if (script === SNAPSHOT_SCRIPT) {
      this.count("eval:snapshot");
      if (this.get(k(1)) !== a(1)) return 0;
      const cur = Number(this.hmget(k(2), ["seq"])[0] ?? "0");
      const seq = Number(a(2));
      if (cur >= seq) return 0;
      this.hset(k(2), [
        ["seq", a(2)],
        ["data", a(3)],
      ]);
      const keep = seq - Number(a(4));
      if (keep > 0) this.xtrimMinId(k(3), `${keep + 1}-0`);
      return 1;
    }
    throw Object.assign(new Error("NOSCRIPT No matching script"), { name: "ReplyError" });
  }
}

/** One connection to a {@link FakeRedisServer}. */
class FakeRedisClient implements RedisClient {
  status = "connecting";
  readonly #server: FakeRedisServer;
  readonly #listeners = new Map<string, ((...args: never[]) => void)[]>();
  /** An open connection keeps the process alive, as a real socket does (the store's own timers are unref'd). */
  readonly #socket = setInterval(() => undefined, 60_000);

  constructor(server: FakeRedisServer) {
    this.#server = server;
    setImmediate(() => this.serverChanged());
  }

  serverChanged(): void {
    if (this.status === "end") return;
    if (this.#server.down) {
      if (this.status === "ready") this.status = "reconnecting";
      this.#emit("error", new Error("connect ECONNREFUSED (fake Redis down)"));
    } else if (this.status !== "ready") {
      this.status = "ready";
      this.#emit("ready");
    }
  }

  on(event: string, listener: (...args: never[]) => void): this {
    this.#listeners.set(event, [...(this.#listeners.get(event) ?? []), listener]);
    return this;
  }

  #emit(event: string, ...args: unknown[]): void {
    for (const l of this.#listeners.get(event) ?? []) (l as (...a: unknown[]) => void)(...args);
  }

  /** Runs a command as the real client would answer it: refused while down or closed. */
  async #run<T>(name: string, command: () => T | Promise<T>): Promise<T> {
    this.#server.count(name);
    if (this.status === "end") throw new Error("Connection is closed.");
    if (this.#server.down || this.status !== "ready")
      throw new Error("Stream isn't writeable and enableOfflineQueue options is false");
    return command();
  }

  eval(script: string, numKeys: number, ...args: string[]): Promise<unknown> {
    return this.#run("eval", () =>
      this.#server.evalScript(script, args.slice(0, numKeys), args.slice(numKeys)),
    );
  }

  set(key: string, value: string, _px: "PX", ms: number): Promise<unknown> {
    return this.#run("set", () => (this.#server.set(key, value, { px: ms }) ? "OK" : null));
  }

  unlink(...keys: string[]): Promise<unknown> {
    return this.#run("unlink", () => this.#server.del(...keys));
  }

  ping(): Promise<unknown> {
    return this.#run("ping", () => "PONG");
  }

  multi(): RedisBatch {
    return new FakeBatch(this.#server, (name, run) => this.#run(name, run), "multi");
  }

  pipeline(): RedisBatch {
    return new FakeBatch(this.#server, (name, run) => this.#run(name, run), "pipeline");
  }

  xrange(key: string, start: string, end: string, _count: "COUNT", n: number): Promise<[string, string[]][]> {
    return this.#run("xrange", () => this.#server.xrange(key, start, end, n));
  }

  xread(
    _count: "COUNT",
    _n: number,
    _block: "BLOCK",
    ms: number,
    _streams: "STREAMS",
    key: string,
    id: string,
  ): Promise<unknown> {
    return this.#run("xread", () => this.#server.xread(key, id, ms));
  }

  config(op: "GET" | "SET", name: string, _value?: string): Promise<unknown> {
    return this.#run("config", () => (op === "GET" ? [name, ""] : "OK"));
  }

  subscribe(_channel: string): Promise<unknown> {
    return this.#run("subscribe", () => 1);
  }

  disconnect(): void {
    this.status = "end";
    clearInterval(this.#socket);
    this.#server.wakeReaders();
  }
}

/** MULTI or a pipeline: the commands queued, run in order on exec. */
class FakeBatch implements RedisBatch {
  readonly #server: FakeRedisServer;
  readonly #run: (name: string, run: () => [Error | null, unknown][]) => Promise<[Error | null, unknown][]>;
  readonly #name: string;
  readonly #queued: (() => unknown)[] = [];

  constructor(
    server: FakeRedisServer,
    run: (name: string, run: () => [Error | null, unknown][]) => Promise<[Error | null, unknown][]>,
    name: string,
  ) {
    this.#server = server;
    this.#run = run;
    this.#name = name;
  }

  mget(...keys: string[]): this {
    this.#queued.push(() => keys.map((k) => this.#server.get(k)));
    return this;
  }

  get(key: string): this {
    this.#queued.push(() => this.#server.get(key));
    return this;
  }

  hmget(key: string, ...fields: string[]): this {
    this.#queued.push(() => this.#server.hmget(key, fields));
    return this;
  }

  exists(key: string): this {
    this.#queued.push(() => this.#server.exists(key));
    return this;
  }

  xrange(key: string, start: string, end: string, _count: "COUNT", n: number): this {
    this.#queued.push(() => this.#server.xrange(key, start, end, n));
    return this;
  }

  set(key: string, value: string, _px: "PX", ms: number): this {
    this.#queued.push(() => (this.#server.set(key, value, { px: ms }) ? "OK" : null));
    return this;
  }

  exec(): Promise<[Error | null, unknown][] | null> {
    return this.#run(this.#name, () => this.#queued.map((c) => [null, c()] as [Error | null, unknown]));
  }
}
