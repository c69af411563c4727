import type { Stats } from "node:fs";
import { closeSync, constants, existsSync, fstatSync, openSync, readSync, statSync } from "node:fs";

/**
 * The most bytes bootstatus reads of one state file (status.json, cloud.cfg, the kernel command line, ...): 256 MiB.
 * cloud-init itself loads a 200 MB status.json; a bigger file is refused before more memory is spent on it.
 */
export const STATE_FILE_LIMIT = 256 * 1024 * 1024;

/** What reading one state file gave: its bytes, nothing (absent), or why it was refused. */
export type StateFileRead =
  | { kind: "ok"; bytes: Buffer }
  | { kind: "missing" }
  | { kind: "refused"; reason: string };

const CHUNK = 64 * 1024;

const ERRNO_REASONS: Record<string, string> = {
  EACCES: "permission denied",
  EISDIR: "it is a directory",
  ELOOP: "too many levels of symbolic links",
};

/** How messages name a file that is not a regular file. */
export function fileTypeName(stats: Stats): string | undefined {
  if (stats.isFile()) return undefined;
  if (stats.isDirectory()) return "a directory";
  if (stats.isFIFO()) return "a FIFO (named pipe)";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  return "not a regular file";
}

function notRegular(type: string): StateFileRead {
  // "it is a directory" is the wording the error report has always used for a directory.
  return {
    kind: "refused",
    reason: type === "a directory" ? "it is a directory" : `it is ${type}, not a regular file`,
  };
}

function tooLarge(limit: number): StateFileRead {
  return {
    kind: "refused",
    reason: `it is larger than ${limit} bytes, bootstatus's limit for one state file`,
  };
}

/**
 * Reads a state file without ever blocking on it: opened with O_NONBLOCK (a FIFO with no writer opens at once),
 * refused unless it is a regular file, and read in chunks up to `limit` bytes, so a file that keeps growing while
 * it is read (or a /proc file, whose size says 0) costs at most `limit` bytes before the refusal.
 */
export function readStateFile(file: string, options: { limit?: number } = {}): StateFileRead {
  const limit = options.limit ?? STATE_FILE_LIMIT;
  // Most config files looked for do not exist: asking first spares building an ENOENT exception for each.
  if (!existsSync(file)) return { kind: "missing" };
  const opened = openWithoutBlocking(file);
  if (opened.kind === "not-regular") return notRegular(opened.type);
  if (opened.kind !== "open") return opened;
  const { fd, stats } = opened;
  try {
    if (stats.size > limit) return tooLarge(limit);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK, limit + 1 - total));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(n === chunk.length ? chunk : chunk.subarray(0, n));
      total += n;
      if (total > limit) return tooLarge(limit);
    }
    return { kind: "ok", bytes: Buffer.concat(chunks, total) };
  } catch (error) {
    return { kind: "refused", reason: errnoReason(error) };
  } finally {
    closeSync(fd);
  }
}

/** A file opened for reading without blocking, or why not: absent, not a regular file (by type), or an errno. */
export type OpenedFile =
  | { kind: "open"; fd: number; stats: Stats }
  | { kind: "missing" }
  | { kind: "not-regular"; type: string }
  | { kind: "refused"; reason: string };

/**
 * Opens `file` with O_NONBLOCK (a FIFO with no writer opens at once) and keeps it only if it is a regular file; the
 * caller closes `fd`. Shared by the state files and the logs, which word the refusals each their own way.
 */
export function openWithoutBlocking(file: string): OpenedFile {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "";
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "missing" };
    // open(2) on a Unix socket fails with ENXIO: name the type instead of the errno.
    if (code === "ENXIO") {
      try {
        const type = fileTypeName(statSync(file));
        if (type !== undefined) return { kind: "not-regular", type };
      } catch {}
    }
    return { kind: "refused", reason: errnoReason(error) };
  }
  try {
    const stats = fstatSync(fd);
    const type = fileTypeName(stats);
    if (type === undefined) return { kind: "open", fd, stats };
    closeSync(fd);
    return { kind: "not-regular", type };
  } catch (error) {
    closeSync(fd);
    return { kind: "refused", reason: errnoReason(error) };
  }
}

/** How a refusal names a failed call: in words for the errnos a reader meets, else the errno's name. */
function errnoReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code ?? "";
  return ERRNO_REASONS[code] ?? (code || String(error));
}
