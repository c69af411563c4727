import { link, open, readFile, realpath, rename, rm, stat, utimes } from "node:fs/promises";
import { join } from "node:path";
import { type Lockfile, lockedArtifact } from "../lockfile.js";
import type { Platform } from "../platform.js";
import { tempPath } from "../replace-file.js";
import { commandName } from "../safe-names.js";
import { LOCK_LINK_NAME, SHIM_FRAGMENT_NAME, TOML_LINK_NAME } from "./layout.js";

// The shim's hot path (shims.ts) decides with shell built-ins alone: `test -ef` tells the project's toolmgr.toml
// and toolmgr.lock are the very files (inodes) linked beside the record, `test -ot` that neither was modified since
// the record's answers were made, and `.` reads the answers. Three rules keep that exact:
// - the answers' modification time is set to a moment before the two files were read for them (the change time of
//   the fresh links, from the clock of the file system both are on): a file edited afterwards, even within the same
//   second and keeping its size, has a time that is not older, and the shim takes the full check;
// - the texts read through the fresh links must be the ones `sync`/`exec` found current, or nothing is recorded;
// - a hard link is only possible on the project's own file system, so both times come from one clock (a project on
//   another file system, NFS included, never gets the hot path: the shim keeps its awk check there).
// A file replaced by another (an editor's rename, `git checkout`, `tar x`) is another inode, whatever its time.

/** A fragment that answers nothing: the shim takes its full check. */
const INERT_FRAGMENT = "# toolmgr: not current; the shims check the project's files themselves\n";

const q = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

/**
 * The shell fragment of answers for a current project: one `pin` call (shims.ts) per pinned executable for
 * `platform`, then `_tm_fast=1` (the shim's variables are `_tm_`-prefixed). A shim for another platform (a store
 * shared between machines) ignores it.
 */
export function shimFragment(lock: Lockfile, platform: Platform): string {
  const lines = [
    "# toolmgr: what the shims run for this project while its toolmgr.toml and toolmgr.lock are the files linked",
    "# beside this one and older than it (written by toolmgr sync/exec, read by the shims; shim-record.ts)",
    `[ "$_tm_platform" = ${q(platform)} ] || return 0`,
  ];
  for (const tool of lock.tools) {
    const artifact = lockedArtifact(tool, platform);
    if (artifact === undefined) continue;
    const install = `${tool.version}-${artifact.sha256.slice(0, 12)}`;
    // For Node's reading of the record (recorded-answers.ts: `status`); a comment to the shim.
    lines.push(`#t ${q(tool.name)} ${q(tool.constraint)} ${q(tool.version)}`);
    for (const bin of tool.bin)
      lines.push(`pin ${q(commandName(bin))} ${q(tool.name)} ${q(install)} ${q(bin)}`);
  }
  lines.push("_tm_fast=1", "");
  return lines.join("\n");
}

/** The project's two files, the texts found current in them, and the answers for them. */
export interface ShimRecordInput {
  readonly projectFile: string;
  readonly lockPath: string;
  readonly projectText: string;
  readonly lockText: string;
  readonly fragment: string;
}

/**
 * Makes `recordDir` answer the shim's hot path for the project, unless it already does. Any failure (another
 * file system, a file that changed meanwhile) leaves an inert fragment: the shim then checks the files itself.
 */
export async function recordShimAnswers(recordDir: string, input: ShimRecordInput): Promise<void> {
  const fragmentPath = join(recordDir, SHIM_FRAGMENT_NAME);
  if (await alreadyAnswers(recordDir, input)) return;
  const temps: string[] = [];
  try {
    // The old answers go first: new links beside them could pair a replaced file with answers for the old one.
    await replaceWith(fragmentPath, INERT_FRAGMENT);
    const links: [string, string, string][] = [];
    for (const [file, name] of [
      [input.projectFile, TOML_LINK_NAME],
      [input.lockPath, LOCK_LINK_NAME],
    ] as const) {
      const temp = tempPath(recordDir);
      temps.push(temp);
      await link(await realpath(file), temp);
      links.push([temp, join(recordDir, name), file]);
    }
    // link(2) set the change time of each file to the file system's clock now: before the texts are read below.
    const times = await Promise.all(links.map(([temp]) => stat(temp, { bigint: true })));
    const before = times.reduce((min, s) => (s.ctimeNs < min ? s.ctimeNs : min), times[0]?.ctimeNs ?? 0n);
    const [projectText, lockText] = await Promise.all(links.map(([temp]) => readFile(temp, "utf8")));
    if (projectText !== input.projectText || lockText !== input.lockText) return;
    // (A rename onto a link to the same file does nothing and leaves the temporary name: `finally` removes it.)
    for (const [temp, target] of links) await rename(temp, target);
    // Whole milliseconds, one less: utimes takes a double, which must not round the time past `before`.
    const seconds = Number(before / 1_000_000n - 1n) / 1000;
    await replaceWith(fragmentPath, input.fragment, seconds);
  } catch {
    // Only the hot path is lost; the shim's full check decides as before.
  } finally {
    await Promise.all(temps.map((t) => rm(t, { force: true })));
  }
}

/** Whether the record already holds these answers, for these very files, made before either was modified. */
async function alreadyAnswers(recordDir: string, input: ShimRecordInput): Promise<boolean> {
  const s = (path: string) => stat(path, { bigint: true }).catch(() => undefined);
  const fragmentPath = join(recordDir, SHIM_FRAGMENT_NAME);
  const [toml, lock, tomlLink, lockLink, fragment] = await Promise.all([
    s(input.projectFile),
    s(input.lockPath),
    s(join(recordDir, TOML_LINK_NAME)),
    s(join(recordDir, LOCK_LINK_NAME)),
    s(fragmentPath),
  ]);
  // A fragment that is not a regular file (a FIFO would block the read below for ever) is written again.
  if (!toml || !lock || !tomlLink || !lockLink || !fragment?.isFile()) return false;
  const same = (a: typeof toml, b: typeof toml) => a.ino === b.ino && a.dev === b.dev;
  if (!same(toml, tomlLink) || !same(lock, lockLink)) return false;
  if (toml.mtimeNs >= fragment.mtimeNs || lock.mtimeNs >= fragment.mtimeNs) return false;
  return (await readFile(fragmentPath, "utf8").catch(() => undefined)) === input.fragment;
}

/** Atomically replaces `path` with `text` (temporary file, fsync, rename), with modification time `mtime`. */
async function replaceWith(path: string, text: string, mtime?: number): Promise<void> {
  const temp = tempPath(join(path, ".."));
  try {
    const file = await open(temp, "wx", 0o644);
    try {
      await file.writeFile(text);
      await file.sync();
    } finally {
      await file.close();
    }
    if (mtime !== undefined) await utimes(temp, mtime, mtime);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
