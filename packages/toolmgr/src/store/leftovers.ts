import { readdirSync, statSync } from "node:fs";
import { rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { TEMP_PREFIX } from "../replace-file.js";
import type { StoreLayout } from "./layout.js";

// What a killed `lock` or `sync` leaves in the store, and nothing else: a download in progress
// (`cache/.download-*`, or `cache/sha256/.tmp-*` from earlier toolmgr versions), an unpacking in progress
// (`tools/<name>/.<version>-<digest12>.tmp-*`, or `.tmp-*`) and remembered answers being written
// (`cache/http/.tmp-*`). Nothing ever reads any of them. Only entries older than a
// day are removed: a younger one may belong to a process still running (nao1215/block e2e/atago/sync.atago.yaml,
// "sync clears the leftovers of an interrupted run and nothing else").

/** Prefix of a download in progress, in `cache/` (beside `cache/sha256/`, on the same file system). */
export const DOWNLOAD_PREFIX = ".download-";

/** A leftover this old was left by a process that died; a live download or unpacking is far younger. */
const ABANDONED_AFTER_MS = 24 * 60 * 60 * 1000;

/** The directory downloads are written in before they are renamed into `cache/sha256/<digest>`. */
export function downloadDir(layout: StoreLayout): string {
  return dirname(layout.cacheDir);
}

/** The prefix of the temporary directory an install is unpacked into, beside the install `target`. */
export function installTempPrefix(target: string): string {
  return `.${target.slice(dirname(target).length + 1)}.tmp-`;
}

/** Whether `name` in a `tools/<name>/` directory is an unpacking in progress. */
function isInstallTemp(name: string): boolean {
  return name.startsWith(TEMP_PREFIX) || (name.startsWith(".") && name.includes(".tmp-"));
}

/** Removes the old downloads in progress of `cache/` and `cache/sha256/`. */
export async function sweepDownloads(layout: StoreLayout, now: number): Promise<void> {
  await Promise.all([
    removeOld(downloadDir(layout), (n) => n.startsWith(DOWNLOAD_PREFIX), now),
    removeOld(layout.cacheDir, (n) => n.startsWith(TEMP_PREFIX), now),
  ]);
}

/** Removes the old unpackings in progress of one tool's directory. */
export function sweepInstalls(toolDir: string, now: number): Promise<void> {
  return removeOld(toolDir, isInstallTemp, now);
}

/**
 * Removes every old leftover of the store: downloads, unpackings, and remembered API answers a killed `lock` was
 * writing (`cache/http/.tmp-*`, which `prune` leaves alone) (`sync` runs it first).
 */
export async function sweepStore(layout: StoreLayout, now: number): Promise<void> {
  const tools = names(layout.toolsDir);
  await Promise.all([
    sweepDownloads(layout, now),
    removeOld(layout.httpCacheDir, (n) => n.startsWith(TEMP_PREFIX), now),
    ...tools.filter((n) => !n.startsWith(".")).map((n) => sweepInstalls(join(layout.toolsDir, n), now)),
  ]);
}

// Listing and stat are synchronous: a sync with nothing to install does little else, and its budget is Node's
// start-up (bench/toolmgr/README.md, "Hot paths"); only a removal, rare, goes through the thread pool.
function names(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

async function removeOld(dir: string, matches: (name: string) => boolean, now: number): Promise<void> {
  await Promise.all(
    names(dir)
      .filter(matches)
      .map(async (name) => {
        const path = join(dir, name);
        let info: ReturnType<typeof statSync>;
        try {
          info = statSync(path, { throwIfNoEntry: false });
        } catch {
          info = undefined;
        }
        if (info !== undefined && now - info.mtimeMs > ABANDONED_AFTER_MS) {
          await rm(path, { recursive: true, force: true });
        }
      }),
  );
}
