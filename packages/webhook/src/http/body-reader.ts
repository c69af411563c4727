// A request body by Content-Length or in chunks, as Go's transfer.go and internal/chunked.go read it, taken
// incrementally as the bytes arrive.
import { goQuote } from "@local/go-compat/quote";
import type { BodyFraming } from "./wire-request.js";

const CRLFCRLF = Buffer.from("\r\n\r\n");
const EMPTY = Buffer.alloc(0);

/** Go's chunked.go: a chunk-size line (with its `\n`) of 4096 bytes or more is refused. */
const MAX_CHUNK_LINE = 4096;
/** bufio's default buffer, within which the trailer's blank line must be seen (`seeUpcomingDoubleCRLF`). */
const MAX_TRAILER = 4096;

const SUSPICIOUS_TRAILER = "http: suspiciously long trailer after chunked body";

/** Where a body reader is. */
type BodyState = "done" | "reading" | "error";

/**
 * A request body read as it arrives, by Content-Length or in chunks exactly as Go's chunkedReader and readTrailer
 * take them. What was decoded before a framing error is kept: upstream serves it (`ioutil.ReadAll` returns it with
 * the error), and the connection then closes.
 */
export class BodyReader {
  readonly #framing: BodyFraming;
  #data: Buffer = EMPTY;
  #size = 0;
  #remaining: number;
  #state: BodyState;
  /** Chunked: which part of the framing comes next. */
  #step: "size" | "data" | "crlf" | "trailer" = "size";
  #line: Buffer[] = [];
  #lineBytes = 0;
  /** Why the framing broke, in Go's words (internal/chunked.go, transfer.go readTrailer). */
  #error: string | undefined;

  constructor(framing: BodyFraming) {
    this.#framing = framing;
    this.#remaining = framing.kind === "length" ? framing.length : 0;
    this.#state = framing.kind === "none" ? "done" : "reading";
  }

  /** The body ended as framed. */
  get done(): boolean {
    return this.#state === "done";
  }

  /** The framing was broken (Go's chunked errors): the body is what came before, and the connection must close. */
  get failed(): boolean {
    return this.#state === "error";
  }

  /** Go's error for a broken body (what `ioutil.ReadAll` returns beside the bytes before it), else undefined. */
  get error(): string | undefined {
    return this.#state === "error" ? this.#error : undefined;
  }

  /** Body bytes decoded so far. */
  get size(): number {
    return this.#size;
  }

  /** For a Content-Length body, the bytes still to come. */
  get remaining(): number {
    return this.#remaining;
  }

  get chunked(): boolean {
    return this.#framing.kind === "chunked";
  }

  /** The bytes decoded so far (the body, once `done`). */
  body(): Buffer {
    return this.#data.subarray(0, this.#size);
  }

  /** Forgets the decoded bytes (a body read only to be dropped), keeping the count. */
  drop(): void {
    this.#data = EMPTY;
  }

  /** The client ended the connection before the body did: the body is what came, and it is an error. */
  end(): void {
    if (this.#state !== "reading") return;
    // readTrailer: under two bytes left is its EOF error; otherwise the blank line it peeks for never comes.
    if (this.#framing.kind === "chunked" && this.#step === "trailer")
      this.#fail(this.#lineBytes < 2 ? "http: unexpected EOF reading trailer" : SUSPICIOUS_TRAILER);
    else this.#fail("unexpected EOF");
  }

  #fail(error: string): void {
    this.#state = "error";
    this.#error = error;
  }

  /** Takes bytes off the wire; returns how many of `chunk` belong to this body (the rest is the next request). */
  push(chunk: Buffer): number {
    return this.#take(chunk, { keep: true });
  }

  /** As {@link push}, for a body read only to be dropped: its bytes are counted, not kept. */
  skip(chunk: Buffer): number {
    return this.#take(chunk, { keep: false });
  }

  #take(chunk: Buffer, options: { keep: boolean }): number {
    const { keep } = options;
    if (this.#state !== "reading") return 0;
    if (this.#framing.kind === "length") {
      const take = Math.min(chunk.length, this.#remaining);
      this.#append(chunk.subarray(0, take), keep);
      this.#remaining -= take;
      if (this.#remaining === 0) this.#state = "done";
      return take;
    }
    let at = 0;
    while (at < chunk.length && this.#state === "reading") {
      switch (this.#step) {
        case "size": {
          const lf = chunk.indexOf(0x0a, at);
          const end = lf < 0 ? chunk.length : lf + 1;
          this.#line.push(chunk.subarray(at, end));
          this.#lineBytes += end - at;
          at = end;
          if (this.#lineBytes >= MAX_CHUNK_LINE) {
            this.#fail("header line too long");
            return at;
          }
          if (lf >= 0) this.#sizeLine();
          break;
        }
        case "data": {
          const take = Math.min(chunk.length - at, this.#remaining);
          this.#append(chunk.subarray(at, at + take), keep);
          this.#remaining -= take;
          at += take;
          if (this.#remaining === 0) this.#step = "crlf";
          break;
        }
        case "crlf": {
          // Exactly CRLF after the chunk's data (chunkedReader checkEnd).
          this.#line.push(chunk.subarray(at, at + 2 - this.#lineBytes));
          const got = Math.min(2 - this.#lineBytes, chunk.length - at);
          this.#lineBytes += got;
          at += got;
          if (this.#lineBytes === 2) {
            const crlf = Buffer.concat(this.#line);
            this.#line = [];
            this.#lineBytes = 0;
            if (crlf[0] !== 0x0d || crlf[1] !== 0x0a) this.#fail("malformed chunked encoding");
            else this.#step = "size";
          }
          break;
        }
        case "trailer": {
          // readTrailer: CRLF at once ends the body; otherwise a blank line must come within bufio's buffer and
          // every line before it must be a header line (with a colon).
          const take = Math.min(chunk.length - at, MAX_TRAILER - this.#lineBytes);
          const before = this.#lineBytes;
          this.#line.push(chunk.subarray(at, at + take));
          this.#lineBytes += take;
          const seen = Buffer.concat(this.#line);
          this.#line = [seen];
          if (seen.length >= 2 && seen[0] === 0x0d && seen[1] === 0x0a) {
            this.#state = "done";
            return at + 2 - before;
          }
          const blank = seen.indexOf(CRLFCRLF);
          if (blank >= 0) {
            const lines = seen.toString("latin1", 0, blank).split("\r\n");
            const bad = lines.find((l) => !l.includes(":"));
            // textproto.ReadMIMEHeader's errors (Go 1.19.8, mustHaveFieldNameColon).
            if (lines[0]?.startsWith(" ") || lines[0]?.startsWith("\t"))
              this.#fail(`malformed MIME header initial line: ${lines[0]}`);
            else if (bad !== undefined) this.#fail(`malformed MIME header: missing colon: ${goQuote(bad)}`);
            else this.#state = "done";
            return at + blank + 4 - before;
          }
          at += take;
          if (this.#lineBytes >= MAX_TRAILER) this.#fail(SUSPICIOUS_TRAILER);
          break;
        }
      }
    }
    return at;
  }

  /** A chunk-size line is complete: trailing blanks trimmed, extension cut, at most 16 hex digits. */
  #sizeLine(): void {
    const line = Buffer.concat(this.#line, this.#lineBytes);
    this.#line = [];
    this.#lineBytes = 0;
    let end = line.length;
    while (
      end > 0 &&
      (line[end - 1] === 0x20 || line[end - 1] === 0x09 || line[end - 1] === 0x0a || line[end - 1] === 0x0d)
    ) {
      end--;
    }
    const semi = line.indexOf(0x3b);
    if (semi >= 0 && semi < end) end = semi;
    let size = 0;
    for (let i = 0; i < end; i++) {
      const c = line[i] as number;
      const digit =
        c >= 0x30 && c <= 0x39
          ? c - 0x30
          : c >= 0x61 && c <= 0x66
            ? c - 0x57
            : c >= 0x41 && c <= 0x46
              ? c - 0x37
              : -1;
      // parseHexUint: the byte is checked before the count.
      if (digit < 0) {
        this.#fail("invalid byte in chunk length");
        return;
      }
      if (i === 16) {
        this.#fail("http chunk length too large");
        return;
      }
      size = size * 16 + digit;
    }
    if (size === 0) this.#step = "trailer";
    else {
      this.#remaining = size;
      this.#step = "data";
    }
  }

  #append(bytes: Buffer, keep: boolean): void {
    if (bytes.length === 0) return;
    if (keep && this.#size === 0 && this.#data.length === 0) {
      // The first piece is kept where it arrived (socket reads are fresh buffers, never reused): most bodies
      // come whole in one read, and then cost no copy. A later piece grows into a buffer of its own.
      this.#data = bytes;
    } else if (keep) {
      if (this.#size + bytes.length > this.#data.length) {
        const grown = Buffer.allocUnsafe(Math.max(this.#size + bytes.length, this.#data.length * 2, 1024));
        this.#data.copy(grown, 0, 0, this.#size);
        this.#data = grown;
      }
      bytes.copy(this.#data, this.#size);
    }
    this.#size += bytes.length;
  }
}
/**
 * What a second read of a body returns after its first failed (Go 1.19 net/http body.readLocked): a Content-Length
 * body cut short has seen its EOF (no error), a broken trailer closed the body, and a chunked framing error stays.
 */
export function secondReadError(error: string, chunked: boolean): string | undefined {
  if (error === "unexpected EOF" && !chunked) return undefined;
  if (error.startsWith("http: ") || error.startsWith("malformed MIME header"))
    return "http: invalid Read on closed Body";
  return error;
}
