import { createHash, randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
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
  set(key: { readonly url: string; readonly accept: string }, answer: CachedAnswer): Promise<void>;
}

/**
 * A response cache in the store, `cache/http/<sha256 of accept and URL>`: one small JSON file per answer, written
 * atomically (temp + rename) so concurrent `lock`s never read half a file. Never holds credentials: the key is the
 * URL and media type, the value the validator and the body. A damaged or unreadable entry is a miss, and a failed
 * write is ignored: the cache only saves requests (a 304 does not count against the host's rate limit, GitHub REST
 * docs "Use conditional requests if appropriate"), it never decides anything.
 */
export function createFileResponseCache(dir: string): ResponseCache {
  const path = (key: { url: string; accept: string }) =>
    join(dir, createHash("sha256").update(`${key.accept}\n${key.url}`).digest("hex"));
  let made: Promise<unknown> | undefined;
  return {
    async get(key) {
      try {
        const entry = JSON.parse(await readFile(path(key), "utf8")) as Partial<CachedAnswer> & {
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
    async set(key, answer) {
      const target = path(key);
      const temp = `${target}.${randomBytes(6).toString("hex")}.tmp`;
      try {
        made ??= mkdir(dir, { recursive: true });
        await made;
        await writeFile(temp, JSON.stringify({ url: key.url, accept: key.accept, ...answer }));
        await rename(temp, target);
      } catch {
        await rm(temp, { force: true }).catch(() => {});
      }
    },
  };
}
