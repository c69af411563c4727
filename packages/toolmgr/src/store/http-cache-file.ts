import { createHash } from "node:crypto";
import { join } from "node:path";
import type { StoreLayout } from "./layout.js";

// Apart from layout.ts: node:crypto costs milliseconds to load, and `exec`/`which` need the layout, not this.

/**
 * The file of a project's remembered API answers: `cache/http/<sha256 of the project file's path>.json`, written by
 * `lock` (session/network-session.ts) and removed by `prune` once the project is gone (prune.ts).
 */
export function httpCacheFile(layout: StoreLayout, projectFile: string): string {
  return join(layout.httpCacheDir, `${createHash("sha256").update(projectFile).digest("hex")}.json`);
}
