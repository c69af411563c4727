import { randomBytes } from "node:crypto";
import { lstat, readdir, rename, rm, rmdir } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { readBoundedText } from "../bounded-read.js";
import { LockfileError } from "../errors.js";
import { LOCKFILE_NAME, parseLockfile } from "../lockfile.js";
import { isFile, PROJECT_FILE_NAME } from "../project/find-project-file.js";
import { httpCacheFile } from "./http-cache-file.js";
import type { StoreLayout } from "./layout.js";
import { LOCK_LINK_NAME, SHIM_FRAGMENT_NAME, TOML_LINK_NAME } from "./layout.js";
import { SHIM_ANSWERS_NAME } from "./verified-project.js";

/**
 * One thing `prune` removes: an install, a cached artifact, the remembered API answers of a project (`cache/http/`),
 * or the record of a project that is gone.
 */
export interface PruneItem {
  readonly kind: "install" | "artifact" | "answers" | "record";
  readonly path: string;
  /** The path inside the store, as printed (`tools/hello/1.2.0-0123456789ab`). */
  readonly label: string;
  readonly bytes: number;
}

/** The files of a project record (verified-project.ts). */
const RECORD_FILES = [
  PROJECT_FILE_NAME,
  LOCKFILE_NAME,
  SHIM_ANSWERS_NAME,
  SHIM_FRAGMENT_NAME,
  TOML_LINK_NAME,
  LOCK_LINK_NAME,
];

/**
 * What `prune` would remove: every install (`tools/<name>/<version>-<digest12>/`) and cached
 * artifact (`cache/sha256/<digest>`) that no live project's current `toolmgr.lock` pins for any platform it
 * records, nor the user toolset's lock. Projects are known from the store's own records (`projects/<dir>/`); a
 * record whose project directory, `toolmgr.toml` or `toolmgr.lock` is gone protects nothing and is removed too, with
 * the project's remembered API answers (`cache/http/`). Entries starting with `.` (downloads, unpackings and
 * answers being written) are `sync`'s sweep's (leftovers.ts), never prune's.
 *
 * @throws {LockfileError} when a live project's lock does not parse: what it pins cannot be told, so nothing goes
 */
export async function planPrune(
  layout: StoreLayout,
  options: { readonly userToolset: string },
): Promise<PruneItem[]> {
  const records = await findRecords(layout.projectsDir);
  const locks = new Set<string>();
  const answers = new Set<string>();
  const items: PruneItem[] = [];
  for (const record of records) {
    const project = projectDirOf(relative(layout.projectsDir, record));
    const live =
      (await isFile(join(project, PROJECT_FILE_NAME))) && (await isFile(join(project, LOCKFILE_NAME)));
    if (live) {
      locks.add(join(project, LOCKFILE_NAME));
      answers.add(httpCacheFile(layout, join(project, PROJECT_FILE_NAME)));
    } else
      items.push({
        kind: "record",
        path: record,
        label: labelOf(layout, record),
        bytes: await recordSize(record),
      });
  }
  if (await isFile(options.userToolset)) {
    answers.add(httpCacheFile(layout, options.userToolset));
    const lock = join(dirname(options.userToolset), LOCKFILE_NAME);
    if (await isFile(lock)) locks.add(lock);
  }
  const installs = new Set<string>();
  const artifacts = new Set<string>();
  for (const path of [...locks].sort()) {
    let lock: ReturnType<typeof parseLockfile>;
    try {
      lock = parseLockfile(
        await readBoundedText(path, { kind: "lock", refuse: (m) => new LockfileError(m) }),
      );
    } catch (cause) {
      const why = cause instanceof Error ? cause.message : String(cause);
      throw new LockfileError(
        `Cannot prune: ${path} cannot be read (${why}); fix it or run \`toolmgr lock\` there, or delete that project: prune removes nothing while it cannot tell what a lock pins`,
        { cause },
      );
    }
    for (const tool of lock.tools) {
      for (const artifact of tool.artifacts) {
        installs.add(join(tool.name, `${tool.version}-${artifact.sha256.slice(0, 12)}`));
        artifacts.add(artifact.sha256);
      }
    }
  }
  for (const name of await names(layout.toolsDir)) {
    for (const entry of await names(join(layout.toolsDir, name))) {
      if (installs.has(join(name, entry))) continue;
      const path = join(layout.toolsDir, name, entry);
      items.push({ kind: "install", path, label: labelOf(layout, path), bytes: await sizeOf(path) });
    }
  }
  for (const digest of await names(layout.cacheDir)) {
    if (artifacts.has(digest)) continue;
    const path = join(layout.cacheDir, digest);
    items.push({ kind: "artifact", path, label: labelOf(layout, path), bytes: await sizeOf(path) });
  }
  // `cache/http/<sha256 of a project file's path>.json` (layout.ts): a project's remembered API answers, written only
  // by its `lock`, which records the project. The file of a project that is not live (its record is gone or going,
  // above) is never read again: no project file has that path any more, or the project is not known here. Removing
  // it can never make an answer wrong, since a remembered body is only ever used after the host confirmed it with a
  // 304 (http/client.ts), so the rule is the one that keeps exactly what a live project or the user toolset would
  // send: liveness, not age. An age rule would keep a deleted project's file for weeks and drop a quiet live
  // project's (which then pays its full requests again); the 30-day expiry inside a file (response-cache.ts) already
  // drops the entries a live project stopped asking for.
  for (const name of await names(layout.httpCacheDir)) {
    const path = join(layout.httpCacheDir, name);
    if (answers.has(path)) continue;
    items.push({ kind: "answers", path, label: labelOf(layout, path), bytes: await sizeOf(path) });
  }
  return items.sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
}

/**
 * Removes what `planPrune` found. An install is first renamed out of its place (one atomic step, to a name `sync`'s
 * sweep treats as an abandoned unpacking), so no reader ever sees it half-removed.
 */
export async function applyPrune(layout: StoreLayout, items: readonly PruneItem[]): Promise<void> {
  for (const item of items) {
    if (item.kind === "install") {
      const aside = join(
        dirname(item.path),
        `.${item.path.slice(dirname(item.path).length + 1)}.tmp-prune-${randomBytes(4).toString("hex")}`,
      );
      await rename(item.path, aside);
      await rm(aside, { recursive: true, force: true });
      await rmdir(dirname(item.path)).catch(() => {}); // the tool's directory, when it is now empty
    } else if (item.kind === "artifact" || item.kind === "answers") {
      await rm(item.path, { force: true, recursive: true });
    } else {
      await Promise.all(RECORD_FILES.map((name) => rm(join(item.path, name), { force: true })));
      // Empty directories up to projects/ go too; one holding a nested project's record stays.
      for (let dir = item.path; dir.startsWith(layout.projectsDir + sep); dir = dirname(dir)) {
        if (
          !(await rmdir(dir).then(
            () => true,
            () => false,
          ))
        )
          break;
      }
    }
  }
}

/** A size as people read it: `0 B`, `512 B`, `12.3 kB`, `4.1 MB`, `1.2 GB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ["kB", "MB", "GB", "TB"];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** Every record directory below `projects/` (a directory holding one of the record's files). */
async function findRecords(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const found: string[] = [];
  if (entries.some((e) => e.isFile() && RECORD_FILES.includes(e.name))) found.push(dir);
  for (const entry of entries) {
    if (entry.isDirectory()) found.push(...(await findRecords(join(dir, entry.name))));
  }
  return found;
}

/** The project directory a record stands for: `projects/<absolute project directory>` (verified-project.ts). */
function projectDirOf(inside: string): string {
  // POSIX: `projects/home/me/p` is `/home/me/p`; Windows: `projects\C:\p` is `C:\p`.
  return sep === "/" ? `/${inside}` : inside;
}

function labelOf(layout: StoreLayout, path: string): string {
  return relative(layout.home, path).split(sep).join("/");
}

async function names(dir: string): Promise<string[]> {
  return (await readdir(dir).catch(() => [] as string[])).filter((n) => !n.startsWith("."));
}

async function recordSize(dir: string): Promise<number> {
  let total = 0;
  for (const name of RECORD_FILES) total += (await lstat(join(dir, name)).catch(() => undefined))?.size ?? 0;
  return total;
}

/** Bytes a file or directory tree takes (its files' sizes; links counted as themselves). */
async function sizeOf(path: string): Promise<number> {
  const info = await lstat(path).catch(() => undefined);
  if (info === undefined) return 0;
  if (!info.isDirectory()) return info.size;
  let total = 0;
  for (const name of await readdir(path).catch(() => [] as string[])) total += await sizeOf(join(path, name));
  return total;
}
