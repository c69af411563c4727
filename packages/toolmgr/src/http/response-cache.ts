import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { readBoundedText } from "../bounded-read.js";
import { hideCredentials } from "../hide-credentials.js";
import { replaceFileSync } from "../replace-file.js";

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
  /** Writes the file, if anything changed since it was read. */
  flush(): void;
}

interface Entry extends CachedAnswer {
  /** When a lock last asked for it (ms since the epoch), to drop what no lock asks for any more. */
  readonly used: number;
}

/** An entry no `lock` of the project asked for in this long is dropped (a removed tool, an old prefix). */
const UNUSED_MS = 30 * 24 * 3600 * 1000;

/** How stale an entry's "last used" time may get before a lock that uses it rewrites the file. */
const REFRESH_MS = 24 * 3600 * 1000;

/**
 * A response cache in one file per project, `cache/http/<sha256 of the project file's path>.json`. Never holds
 * credentials: the key is the media type and URL, the value the validator and the body. A damaged or unreadable
 * file is an empty cache, and a failed write is ignored: the cache only saves requests (a 304 does not count against
 * the host's rate limit, GitHub REST docs "Use conditional requests if appropriate"), it never decides anything.
 *
 * One file, read once and written once after resolution (temp + rename, so a concurrent `lock` reads the old file or
 * the new one): a file per answer cost a read and a write on every request of the resolution chains, ~100 files per
 * `lock` of 50 tools (measured with lock-bench.mjs and --cpu-prof; bench/toolmgr/README.md, "lock").
 */
export function createFileResponseCache(path: string, options: { now?: () => number } = {}): ResponseCache {
  const now = options.now ?? Date.now;
  let loaded: Promise<Map<string, Entry>> | undefined;
  let entries = new Map<string, Entry>();
  let changed = false;
  const load = () => {
    // A file that is not a regular one or too large is no remembered answer: the requests are made in full.
    loaded ??= readBoundedText(path, { kind: "state", refuse: (m) => new Error(m) }).then(
      (text) => {
        entries = parseEntries(text, now());
        return entries;
      },
      () => entries,
    );
    return loaded;
  };
  // A URL's credentials (`CODEHOST_API_URL=https://user:token@host/`) are no part of the name: never on disk.
  const name = (key: { url: string; accept: string }) => `${key.accept}\n${hideCredentials(key.url)}`;
  return {
    async get(key) {
      const entry = (await load()).get(name(key));
      if (entry === undefined) return undefined;
      // "Last used" only needs day precision: a re-lock that only revalidated answers leaves the file alone.
      if (now() - entry.used > REFRESH_MS) {
        entries.set(name(key), { ...entry, used: now() });
        changed = true;
      }
      return {
        etag: entry.etag,
        body: entry.body,
        ...(entry.link === undefined ? {} : { link: entry.link }),
      };
    },
    set(key, answer) {
      entries.set(name(key), { ...answer, used: now() });
      changed = true;
    },
    flush() {
      if (!changed) return;
      changed = false;
      try {
        mkdirSync(dirname(path), { recursive: true });
        replaceFileSync(path, JSON.stringify({ version: 1, entries: Object.fromEntries(entries) }));
      } catch {
        // A cache that cannot be written costs the next lock its 304s, nothing more.
      }
    },
  };
}

function parseEntries(text: string, now: number): Map<string, Entry> {
  const entries = new Map<string, Entry>();
  try {
    const file = JSON.parse(text) as { version?: unknown; entries?: Record<string, Partial<Entry>> };
    if (file.version !== 1 || typeof file.entries !== "object" || file.entries === null) return entries;
    for (const [key, e] of Object.entries(file.entries)) {
      if (typeof e.etag !== "string" || typeof e.body !== "string" || typeof e.used !== "number") continue;
      if (now - e.used > UNUSED_MS) continue;
      entries.set(key, {
        etag: e.etag,
        body: e.body,
        used: e.used,
        ...(typeof e.link === "string" ? { link: e.link } : {}),
      });
    }
  } catch {
    // A damaged file is an empty cache.
  }
  return entries;
}
