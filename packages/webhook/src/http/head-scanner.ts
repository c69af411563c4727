// Where an HTTP/1.x request head ends (Go's server.go (*conn).readRequest with its `MaxHeaderBytes` limit), found
// incrementally so a slow or endless client costs time linear in what it sends.
import { GO_MAX_HEADER_BYTES } from "@local/go-compat/http-refusal";
import { BAD_REQUEST, HEAD_TOO_LARGE, type Refusal } from "./wire-request.js";

const CRLFCRLF = Buffer.from("\r\n\r\n");
const LFLF = Buffer.from("\n\n");
const EMPTY = Buffer.alloc(0);

/**
 * Finds where a request head ends in the bytes as they arrive, looking at each byte once (plus the three before
 * each chunk). Reports a head past Go's limit, and a blank line made of bare LFs, which Go would accept and we
 * refuse.
 */
export class HeadScanner {
  readonly #limit: number;
  #tail: Buffer = EMPTY;
  #size = 0;

  constructor(limit = GO_MAX_HEADER_BYTES) {
    this.#limit = limit;
  }

  /** Bytes taken so far. */
  get size(): number {
    return this.#size;
  }

  /**
   * Takes the next chunk: the offset in it just past the head's blank line, `-1` while more is needed, or the
   * refusal to send.
   */
  push(chunk: Buffer): number | Refusal {
    const joined = this.#tail.length === 0 ? chunk : Buffer.concat([this.#tail, chunk]);
    const end = joined.indexOf(CRLFCRLF);
    const lf = joined.indexOf(LFLF);
    if (lf >= 0 && (end < 0 || lf < end + 2)) return BAD_REQUEST;
    if (end >= 0) {
      const inChunk = end + 4 - this.#tail.length;
      if (this.#size + inChunk > this.#limit) return HEAD_TOO_LARGE;
      this.#size += inChunk;
      return inChunk;
    }
    this.#size += chunk.length;
    if (this.#size > this.#limit) return HEAD_TOO_LARGE;
    this.#tail = Buffer.from(joined.subarray(Math.max(0, joined.length - 3)));
    return -1;
  }
}
