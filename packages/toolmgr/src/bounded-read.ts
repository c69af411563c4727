import { closeSync, constants, fstatSync, openSync, readSync, type Stats, statSync } from "node:fs";

// Every file toolmgr reads at run time that someone else may have put there (a project's toolmgr.toml and
// toolmgr.lock arrive through pull requests; the store's records and remembered answers live in a directory other
// programs can write) is read here: only a regular file (a FIFO would block the read until a writer comes, a device
// never ends), opened without blocking, and refused before its bytes are read when it is larger than its limit. The
// POSIX shims check the same limits with the same words (shims.ts).

/** The kinds of file with a size limit; each names its limit in a refusal (README "Limits"). */
export type BoundedKind = "project" | "lock" | "state";

/** `toolmgr.toml` (and the user toolset's): 1 MiB, some thousand tools. */
export const PROJECT_FILE_LIMIT = 1024 * 1024;
/** `toolmgr.lock`: 8 MiB, thousands of tools on every platform (a lock of 50 tools on 4 platforms has ~60 kB). */
export const LOCK_FILE_LIMIT = 8 * 1024 * 1024;
/** The store's own files: project records, remembered API answers, markers, `config.toml`: 64 MiB. */
export const STATE_FILE_LIMIT = 64 * 1024 * 1024;

const LIMITS: Readonly<Record<BoundedKind, { bytes: number; text: string; what: string }>> = {
  project: { bytes: PROJECT_FILE_LIMIT, text: "1 MiB", what: "a project file" },
  lock: { bytes: LOCK_FILE_LIMIT, text: "8 MiB", what: "a lock file" },
  state: { bytes: STATE_FILE_LIMIT, text: "64 MiB", what: "a file of the store" },
};

/**
 * The refusal of a file over its limit, in the words the shim prints too (`path` and `size` may be shell
 * variables there, so the text has no quote, backquote, dollar or backslash of its own).
 */
export function tooLargeText(path: string, size: number | string, kind: BoundedKind): string {
  const limit = LIMITS[kind];
  return `Cannot read ${path}: it has ${size} bytes, over the ${limit.text} (${limit.bytes} bytes) toolmgr reads of ${limit.what}`;
}

/** What a file that is not a regular file is, for a refusal that names it. */
export function fileTypeText(stats: Stats): string {
  if (stats.isDirectory()) return "a directory";
  if (stats.isFIFO()) return "a FIFO (named pipe)";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  return "not a regular file";
}

/** The refusal of a file that is not a regular file, in the shim's words too. */
export function notRegularText(path: string, stats: Stats): string {
  return `Cannot read ${path}: it is ${fileTypeText(stats)}, not a regular file`;
}

/** Reads are made in pieces of this size at most, so a file that grows while read is noticed at its limit. */
const PIECE = 1024 * 1024;

/**
 * Reads a regular file of at most its kind's limit as UTF-8 text. The type and the size are checked before a byte
 * is read; the file is opened with `O_NONBLOCK` (a FIFO swapped in after the check opens at once and is refused by
 * its type, rather than waiting for a writer), and reading stops one byte past the limit, so a file that grows
 * while read is refused too instead of being read without end. Errors of the file system (`ENOENT`, `EACCES`)
 * are thrown unchanged, for the caller's own words. Synchronous underneath: these files are small, and a command
 * whose budget is Node's start-up cannot spend a thread-pool round trip per call (bench/toolmgr/README.md).
 *
 * @throws the error `refuse` makes of the refusal's text, for a file that is not regular or is too large
 */
export async function readBoundedText(
  path: string,
  options: { readonly kind: BoundedKind; readonly refuse: (message: string) => Error },
): Promise<string> {
  return readBoundedTextSync(path, options);
}

/** `readBoundedText`, synchronously. */
export function readBoundedTextSync(
  path: string,
  options: { readonly kind: BoundedKind; readonly refuse: (message: string) => Error },
): string {
  const { bytes: limit } = LIMITS[options.kind];
  const before = statSync(path);
  if (!before.isFile()) throw options.refuse(notRegularText(path, before));
  if (before.size > limit) throw options.refuse(tooLargeText(path, before.size, options.kind));
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw options.refuse(notRegularText(path, stats));
    if (stats.size > limit) throw options.refuse(tooLargeText(path, stats.size, options.kind));
    const pieces: Buffer[] = [];
    let total = 0;
    // One read of the whole file in the usual case (its size plus one byte, to see the end at once).
    let want = Math.min(stats.size + 1, limit + 1);
    for (;;) {
      const piece = Buffer.allocUnsafe(Math.min(want, PIECE));
      const bytesRead = readSync(fd, piece, 0, piece.length, null);
      if (bytesRead === 0) break;
      pieces.push(piece.subarray(0, bytesRead));
      total += bytesRead;
      if (total > limit) {
        throw options.refuse(
          `${tooLargeText(path, `more than ${limit}`, options.kind)} (it grew while it was read)`,
        );
      }
      want = limit + 1 - total;
    }
    return (pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces, total)).toString("utf8");
  } finally {
    closeSync(fd);
  }
}
