import { closeSync, constants, fstatSync, openSync, readSync, type Stats, statSync } from "node:fs";
import { type FileHandle, open, stat } from "node:fs/promises";
import { constants as osConstants } from "node:os";
import { FileReadTimeoutError, NotRegularFileError } from "./errors.js";

/** How long a read of a file at run time may take before it is given up (a stalled NFS mount must not hang a reload). */
export const FILE_READ_TIMEOUT_MS = 10_000;

/** What is read of a regular file whose size the file system gives as 0 (a /proc-style file): at most this. */
const UNSIZED_READ_LIMIT = 16 * 1024 * 1024;

/** Read a piece at a time, so a file the file system gives no size for costs what it holds, not the limit. */
const CHUNK_BYTES = 1024 * 1024;

/** Opened without blocking on a FIFO (O_NONBLOCK) and without becoming the controlling terminal of a tty. */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

/**
 * Reads a file that must be a regular file, without ever blocking on it: its type is checked before it is opened
 * and again on the open descriptor (it may have been replaced in between), a named pipe, socket or device is
 * refused naming the path and its type, and a file that grows while read is read up to the size it had when opened.
 * A directory fails as reading one does in Go (`read <path>: is a directory`, EISDIR), the text upstream gives.
 *
 * @throws {NotRegularFileError} for a named pipe, socket or device
 * @throws {FileReadTimeoutError} when the file system gives no answer within `timeoutMs`
 * @throws node's errno error (ENOENT, EACCES, EISDIR, ...) for the rest
 */
export function readRegularFile(path: string, timeoutMs = FILE_READ_TIMEOUT_MS): Promise<Buffer> {
  return withReadDeadline(readChecked(path), { path, timeoutMs });
}

/**
 * `work` (a read of `path`), or a {@link FileReadTimeoutError} once `timeoutMs` has passed without an answer; the
 * read itself is left to finish or not.
 */
export async function withReadDeadline<T>(
  work: Promise<T>,
  options: { path: string; timeoutMs: number },
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new FileReadTimeoutError(options.path, options.timeoutMs / 1000)),
      options.timeoutMs,
    );
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** {@link readRegularFile} for the synchronous readers (a template's `cat`, expanded while the hooks file is read). */
export function readRegularFileSync(path: string): Buffer {
  refuseUnlessRegular(
    asOpen(() => statSync(path)),
    path,
  );
  const fd = openSync(path, OPEN_FLAGS);
  try {
    const stats = fstatSync(fd);
    refuseUnlessRegular(stats, path);
    const chunks: Buffer[] = [];
    for (let left = readLimit(stats); left > 0; ) {
      const chunk = Buffer.allocUnsafe(Math.min(left, CHUNK_BYTES));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      left -= n;
    }
    return Buffer.concat(chunks);
  } finally {
    closeSync(fd);
  }
}

async function readChecked(path: string): Promise<Buffer> {
  refuseUnlessRegular(
    await stat(path).catch((error: NodeJS.ErrnoException) =>
      asOpen(() => {
        throw error;
      }),
    ),
    path,
  );
  const handle: FileHandle = await open(path, OPEN_FLAGS);
  try {
    const stats = await handle.stat();
    refuseUnlessRegular(stats, path);
    const chunks: Buffer[] = [];
    for (let left = readLimit(stats); left > 0; ) {
      const chunk = Buffer.allocUnsafe(Math.min(left, CHUNK_BYTES));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      left -= bytesRead;
    }
    return Buffer.concat(chunks);
  } finally {
    await handle.close();
  }
}

const errnos = osConstants.errno;

/** Go's os.ReadFile opens first: a missing or forbidden file is reported as `open <path>: …`, not `stat`. */
function asOpen<T>(look: () => T): T {
  try {
    return look();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).syscall === "stat")
      (error as NodeJS.ErrnoException).syscall = "open";
    throw error;
  }
}

/** The size at open time; a file that grows meanwhile is read only that far, so the read ends. */
function readLimit(stats: Stats): number {
  return stats.size > 0 ? stats.size : UNSIZED_READ_LIMIT;
}

function refuseUnlessRegular(stats: Stats, path: string): void {
  if (stats.isFile()) return;
  if (stats.isDirectory()) {
    throw Object.assign(new Error("EISDIR: illegal operation on a directory, read"), {
      code: "EISDIR",
      errno: -errnos.EISDIR,
      syscall: "read",
      path,
    });
  }
  throw new NotRegularFileError(path, fileType(stats));
}

/** A file's type as refusals name it: `a named pipe (FIFO)`, `a socket`, `a directory`, `a regular file`, … */
export function fileType(stats: Stats): string {
  if (stats.isFile()) return "a regular file";
  if (stats.isDirectory()) return "a directory";
  if (stats.isFIFO()) return "a named pipe (FIFO)";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  return "not a regular file";
}
