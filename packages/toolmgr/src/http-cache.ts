import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";

/** One remembered answer: the validator the host gave and the body it validates. */
export interface CachedAnswer {
  readonly etag: string;
  readonly body: string;
  /** The `Link` header, for paginated answers. */
  readonly link?: string | undefined;
}

/** Remembers API answers by URL and `Accept`, so a re-lock can ask "has it changed?" instead of fetching again. */
export interface ResponseCache {
  get(key: { readonly url: string; readonly accept: string }): Promise<CachedAnswer | undefined>;
  /** Remembers an answer; it is written by `flush`, off the resolution's critical path. */
  set(key: { readonly url: string; readonly accept: string }, answer: CachedAnswer): void;
  /** Writes what `set` remembered since the last flush. */
  flush(): void;
}

/**
 * A response cache in the store, `cache/http/<sha256 of accept and URL>`: one small JSON file per answer. Never
 * holds credentials: the key is the URL and media type, the value the validator and the body. A damaged or
 * unreadable entry is a miss, and a failed write is ignored: the cache only saves requests (a 304 does not count
 * against the host's rate limit, GitHub REST docs "Use conditional requests if appropriate"), it never decides
 * anything.
 *
 * Cost, measured with `lock-bench.mjs` and `--cpu-prof`: a file read and an atomic write per request on the
 * resolution path added ~20 ms of CPU and a wait in libuv's 4-thread pool to every one of 100–150 requests. So the
 * directory is listed once (a fresh store reads nothing, a miss costs no failed `open`), and the writes are
 * collected and done in one synchronous batch after resolution (each temp + rename, so concurrent `lock`s never read
 * half a file).
 */
export function createFileResponseCache(dir: string): ResponseCache {
  const name = (key: { url: string; accept: string }) =>
    createHash("sha256").update(`${key.accept}\n${key.url}`).digest("hex");
  let listing: Promise<Set<string>> | undefined;
  const pending = new Map<string, string>();
  return {
    async get(key) {
      listing ??= readdir(dir).then(
        (names) => new Set(names),
        () => new Set<string>(),
      );
      const file = name(key);
      if (!(await listing).has(file)) return undefined;
      try {
        const entry = JSON.parse(await readFile(join(dir, file), "utf8")) as Partial<CachedAnswer> & {
          url?: unknown;
        };
        if (entry.url !== key.url || typeof entry.etag !== "string" || typeof entry.body !== "string")
          return undefined;
        return {
          etag: entry.etag,
          body: entry.body,
          ...(typeof entry.link === "string" ? { link: entry.link } : {}),
        };
      } catch {
        return undefined;
      }
    },
    set(key, answer) {
      pending.set(name(key), JSON.stringify({ url: key.url, accept: key.accept, ...answer }));
    },
    flush() {
      if (pending.size === 0) return;
      try {
        mkdirSync(dir, { recursive: true });
      } catch {
        pending.clear();
        return;
      }
      const suffix = `.${randomBytes(6).toString("hex")}.tmp`;
      for (const [file, text] of pending) {
        const target = join(dir, file);
        try {
          writeFileSync(target + suffix, text);
          renameSync(target + suffix, target);
        } catch {
          rmSync(target + suffix, { force: true });
        }
      }
      pending.clear();
    },
  };
}
