import { closeSync, constants, fstatSync, openSync, readSync, type Stats, statSync } from "node:fs";
import { open } from "node:fs/promises";

// Every file the gateway reads at run time (the web config, the certificates, keys and CA files it names, the
// persistence file, the Redis password file) is opened without blocking and read only when it is a regular file:
// opening a FIFO with no writer would block the event loop (synchronous reads) or a thread-pool thread (for good),
// and a device such as /dev/zero never ends. A file that grows while read is read as it was when opened (its size
// then), so the work is bounded; and a file over its limit is refused before its bytes are read. /dev/null reads as
// empty.

/** A file refused before it was read: not a regular file, or over the size limit for its use. */
export interface FileRefusal extends NodeJS.ErrnoException {
  readonly code: "ENOTREG" | "EFBIG";
}

/** Largest web config file read (`--web.config.file`): exporter-toolkit sets none; a real one is a few kB. */
export const MAX_WEB_CONFIG_BYTES = 1024 * 1024;
/** Largest certificate, key or CA file read for TLS: a CA bundle of every public root is about 220 kB. */
export const MAX_TLS_FILE_BYTES = 4 * 1024 * 1024;
/** Largest Redis password file read (`--storage.redis-password-file`). */
export const MAX_PASSWORD_FILE_BYTES = 64 * 1024;

/** Linux's /dev/null: character device 1:3 (`makedev(1, 3)`). */
const NULL_DEVICE = (1 << 8) | 3;

const FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

/**
 * Reads a regular file synchronously, at most `maxBytes` (`what` names the use in the refusal). Throws node's error
 * for a file that cannot be opened, or a {@link FileRefusal} naming the path and its type or size.
 */
export function readRegularFileSync(path: string, limit: { maxBytes: number; what: string }): Buffer {
  let fd: number;
  try {
    fd = openSync(path, FLAGS);
  } catch (error) {
    throw socketRefusal(error, path) ?? error;
  }
  try {
    const size = checked(fstatSync(fd), path, limit);
    const data = Buffer.allocUnsafe(size);
    let filled = 0;
    while (filled < size) {
      const n = readSync(fd, data, filled, size - filled, null);
      if (n === 0) break;
      filled += n;
    }
    return data.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

/** {@link readRegularFileSync} through the thread pool, for large files read while serving. */
export async function readRegularFile(
  path: string,
  limit: { maxBytes: number; what: string },
): Promise<Buffer> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, FLAGS);
  } catch (error) {
    throw socketRefusal(error, path) ?? error;
  }
  try {
    const size = checked(await handle.stat(), path, limit);
    const data = Buffer.allocUnsafe(size);
    let filled = 0;
    while (filled < size) {
      const { bytesRead } = await handle.read(data, filled, size - filled, null);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return data.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

/** The file's size when it is a regular file within the limit; a {@link FileRefusal} otherwise. */
function checked(stats: Stats, path: string, limit: { maxBytes: number; what: string }): number {
  // The null device reads as empty: configurations name it for "no file" (exporter-toolkit's own test table
  // gives `client_ca_file: /dev/null`), and it never blocks.
  if (stats.isCharacterDevice() && stats.rdev === NULL_DEVICE) return 0;
  if (!stats.isFile()) throw refusal(path, "ENOTREG", `is ${kindOf(stats)}, not a regular file`);
  if (stats.size > limit.maxBytes)
    throw refusal(
      path,
      "EFBIG",
      `is ${stats.size} bytes, over the limit of ${limit.maxBytes} bytes for ${limit.what}`,
    );
  return stats.size;
}

/** Opening a Unix socket fails with ENXIO: named as a socket, like the other kinds. */
function socketRefusal(error: unknown, path: string): FileRefusal | undefined {
  if ((error as NodeJS.ErrnoException).code !== "ENXIO") return undefined;
  try {
    return refusal(path, "ENOTREG", `is ${kindOf(statSync(path))}, not a regular file`);
  } catch {
    return undefined;
  }
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return "a directory";
  if (stats.isFIFO()) return "a named pipe (FIFO)";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  return "of another kind";
}

/** An error shaped as node's (`syscall`, `path`), so Go's `*PathError` text (`open <path>: ...`) names both. */
function refusal(path: string, code: FileRefusal["code"], text: string): FileRefusal {
  return Object.assign(new Error(text), { code, syscall: "open", path, errno: undefined }) as FileRefusal;
}
