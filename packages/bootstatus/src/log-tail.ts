import { closeSync, readSync } from "node:fs";
import { openWithoutBlocking } from "./read-state-file.js";

/** The most bytes read from the end of cloud-init.log for `--explain`: 8 MiB, a few boots of a busy machine. */
export const LOG_TAIL_LIMIT = 8 * 1024 * 1024;

/** The end of a log file: its text, whether the start was cut off, or why it could not be read. */
export type LogTail =
  | { kind: "ok"; text: string; truncated: boolean }
  | { kind: "missing" }
  | { kind: "refused"; reason: string };

/**
 * Reads at most `limit` bytes from the end of a log, without blocking (O_NONBLOCK; a FIFO, device or directory is
 * refused by type) and without reading more than that however big the file is or grows. A cut-off first line
 * is dropped; invalid UTF-8 becomes U+FFFD (a log is read, not trusted).
 */
export function readLogTail(file: string, limit: number = LOG_TAIL_LIMIT): LogTail {
  const opened = openWithoutBlocking(file);
  if (opened.kind === "not-regular")
    return { kind: "refused", reason: `it is ${opened.type}, not a regular file` };
  if (opened.kind !== "open") return opened;
  const { fd, stats } = opened;
  try {
    const start = Math.max(0, stats.size - limit);
    const buffer = Buffer.allocUnsafe(Math.min(limit, stats.size));
    let filled = 0;
    // Only up to the size seen at open: what is appended meanwhile belongs to the next look.
    while (filled < buffer.length) {
      const n = readSync(fd, buffer, filled, buffer.length - filled, start + filled);
      if (n === 0) break;
      filled += n;
    }
    let text = buffer.subarray(0, filled).toString("utf8");
    const truncated = start > 0;
    if (truncated) text = text.slice(text.indexOf("\n") + 1);
    return { kind: "ok", text, truncated };
  } catch (error) {
    return { kind: "refused", reason: (error as NodeJS.ErrnoException).code ?? String(error) };
  } finally {
    closeSync(fd);
  }
}
