import { closeSync, constants, openSync, readdirSync, rmSync, statSync, writeSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";

/** Output segments are files `output.<n>`, segment n holding bytes [n·size, (n+1)·size) of all the job wrote. */
const SEGMENT = /^output\.(\d+)$/;
/** Read-only and without blocking on a FIFO (no effect on a regular file). */
const SEGMENT_OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

/**
 * The output a job keeps (`-jobs-output-bytes`, beyond upstream): everything the command writes is appended to
 * fixed-size segment files in the job's directory, and only the newest two segments are kept, so the disk holds
 * at most twice the limit however much the command writes, and the last `size` bytes can always be read. Writes are
 * synchronous (the page cache takes them at once), so what `bytes` counts is on disk when readers are told.
 */
export class JobOutput {
  readonly #dir: string;
  readonly #size: number;
  #bytes: number;
  #fd: number | undefined;

  constructor(dir: string, options: { size: number; bytes?: number }) {
    this.#dir = dir;
    this.#size = options.size;
    this.#bytes = options.bytes ?? 0;
  }

  /** All the command wrote so far. */
  get bytes(): number {
    return this.#bytes;
  }

  append(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      const offset = this.#bytes % this.#size;
      if (this.#fd === undefined || offset === 0) this.#nextSegment();
      const n = Math.min(chunk.length - at, this.#size - offset);
      writeSync(this.#fd as number, chunk, at, n);
      at += n;
      this.#bytes += n;
    }
  }

  /** The output ended: the open segment is closed. */
  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  #nextSegment(): void {
    this.close();
    const n = Math.floor(this.#bytes / this.#size);
    this.#fd = openSync(join(this.#dir, `output.${n}`), "a", 0o600);
    // Segment n-1 still holds part of the last `size` bytes; n-2 and before are past the limit.
    if (n >= 2) rmSync(join(this.#dir, `output.${n - 2}`), { force: true });
  }
}

/** How many bytes a job's segment files hold in all (its `output_bytes`, recovered after a crash). */
export function outputBytesOnDisk(dir: string, size: number): number {
  let last = -1;
  for (const name of readdirSync(dir)) {
    const n = Number(SEGMENT.exec(name)?.[1] ?? -1);
    if (n > last) last = n;
  }
  if (last < 0) return 0;
  return last * size + statSync(join(dir, `output.${last}`)).size;
}

/**
 * Reads bytes [from, to) of a job's output from its segment files, in pieces of at most 64 KiB; bytes whose segment
 * is gone (past the limit) are skipped.
 */
export async function* readOutput(
  dir: string,
  range: { from: number; to: number; size: number },
): AsyncGenerator<Buffer> {
  let at = range.from;
  const buffer = Buffer.alloc(64 * 1024);
  while (at < range.to) {
    const n = Math.floor(at / range.size);
    const end = Math.min(range.to, (n + 1) * range.size);
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(join(dir, `output.${n}`), SEGMENT_OPEN_FLAGS);
    } catch {
      at = end;
      continue;
    }
    // A segment that is not a regular file (a FIFO put in its place) is skipped as a missing one, never waited on.
    if (!(await handle.stat()).isFile()) {
      await handle.close();
      at = end;
      continue;
    }
    try {
      while (at < end) {
        const { bytesRead } = await handle.read(
          buffer,
          0,
          Math.min(buffer.length, end - at),
          at - n * range.size,
        );
        if (bytesRead === 0) {
          at = end;
          break;
        }
        at += bytesRead;
        yield Buffer.from(buffer.subarray(0, bytesRead));
      }
    } finally {
      await handle.close();
    }
  }
}
