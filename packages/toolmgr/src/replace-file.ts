import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { open, rename, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { readBoundedText } from "./bounded-read.js";

// Every file toolmgr writes where a reader may look at the same moment (the lock, the shims, the store's artifacts,
// the recorded project copies, the remembered API answers) is written here: into a temporary file beside it, flushed
// to disk, then renamed over it. rename(2) is atomic within one file system, so a reader sees the old file or the
// new one, never half of either; the fsync first keeps a crash from leaving the new name on empty content.

/** Prefix of a temporary file beside its target (leftovers.ts names the store's other temporary names). */
export const TEMP_PREFIX = ".tmp-";

/**
 * A fresh temporary path in `dir` (the target's directory or one beside it, so the final rename stays on one file
 * system), named `<prefix><16 hex digits>`.
 */
export function tempPath(dir: string, prefix = TEMP_PREFIX): string {
  // Not node:crypto (milliseconds to load, where `sync` of an installed toolchain has Node's start-up as budget):
  // every use creates the name exclusively (`wx`, mkdir, link), so a name taken by anyone fails rather than being
  // shared.
  const random = () =>
    Math.floor(Math.random() * 0x100000000)
      .toString(16)
      .padStart(8, "0");
  return join(dir, `${prefix}${random()}${random()}`);
}

/**
 * `replaceFile` unless `path` already holds exactly `data` (with `mode`, when given): a second `sync` or `exec`
 * writes nothing. Returns whether it wrote.
 */
export async function updateFile(
  path: string,
  data: string,
  options: { readonly mode?: number } = {},
): Promise<boolean> {
  // What is there is compared only when it is a regular file of a sane size: a FIFO put there would block the read.
  const current = await readBoundedText(path, { kind: "state", refuse: (m) => new Error(m) }).catch(
    () => undefined,
  );
  if (current === data) {
    const mode =
      options.mode === undefined
        ? undefined
        : await stat(path).then(
            (s) => s.mode & 0o777,
            () => -1,
          );
    if (mode === options.mode) return false;
  }
  await replaceFile(path, data, options);
  return true;
}

/**
 * Replaces `path` with `data` atomically (temporary file, fsync, rename). On failure the temporary file is removed
 * and `path` is untouched.
 */
export async function replaceFile(
  path: string,
  data: string | Uint8Array,
  options: { readonly mode?: number } = {},
): Promise<void> {
  const temp = tempPath(dirname(path));
  try {
    const file = await open(temp, "wx", options.mode ?? 0o644);
    try {
      await file.writeFile(data);
      // `open`'s mode is filtered by the umask; an executable (a shim) must end up executable whatever it is.
      if (options.mode !== undefined) await file.chmod(options.mode);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** `replaceFile` for the one synchronous writer (the response cache, flushed from a `finally`). */
export function replaceFileSync(path: string, data: string): void {
  const temp = tempPath(dirname(path));
  try {
    const fd = openSync(temp, "wx", 0o644);
    try {
      writeFileSync(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/**
 * Moves a finished temporary file (written by a stream, from `tempPath`) to `path`: fsync, then rename. The caller
 * removes the temporary file when this throws.
 */
export async function commitFile(temp: string, path: string): Promise<void> {
  const file = await open(temp, "r+");
  try {
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(temp, path);
}
