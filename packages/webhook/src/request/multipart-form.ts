import { randomInt } from "node:crypto";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseMediaType } from "@local/go-compat/media-type";
import { goQuote } from "@local/go-compat/quote";
import { MultipartError } from "../errors.js";
import { canonicalHeaderKey } from "./request-values.js";

/** A part's MIME header: canonical name → values in order (Go's `textproto.MIMEHeader`). */
export type MimeHeader = ReadonlyMap<string, readonly string[]>;

/** A file part (Go's `multipart.FileHeader`): its bytes in memory, or in a temporary file past the memory budget. */
export interface FormFile {
  readonly filename: string;
  readonly header: MimeHeader;
  readonly size: number;
  readonly content?: Buffer;
  readonly tmpfile?: string;
}

/** A parsed form (Go's `multipart.Form`): values and files by field name, in the order they came. */
export interface MultipartForm {
  readonly values: ReadonlyMap<string, readonly string[]>;
  readonly files: ReadonlyMap<string, readonly FormFile[]>;
}

// mime/multipart: the bufio size of NewReader (a boundary line longer than it cannot be read), the per-part header
// limits of NextPart, and ReadForm's part limit (Go 1.19.8, which Debian's webhook 2.8.0 is built with).
const PEEK_BUFFER_SIZE = 4096;
const MAX_MIME_HEADERS = 10000;
const MAX_PARTS = 1000;
const MAP_ENTRY_OVERHEAD = 200;
const FILE_HEADER_SIZE = 100;

/**
 * Whether Go's `ParseMultipartForm` reads the body at all, given the request's own Content-Type (upstream parses
 * multipart when `incoming-payload-content-type` says so, whatever the request says): `ParseForm` reads a
 * form-urlencoded POST, PUT or PATCH body, and `multipartReader` a `multipart/form-data` one with a boundary; any
 * other type fails before a byte is read, so no `100 Continue` goes out (net/http request.go).
 */
export function goReadsMultipartBody(method: string, contentType: string): boolean {
  const media = parseMediaType(contentType === "" ? "application/octet-stream" : contentType);
  if ("error" in media) return false;
  if (media.type === "multipart/form-data") return media.params.has("boundary");
  return media.type === "application/x-www-form-urlencoded" && ["POST", "PUT", "PATCH"].includes(method);
}

/**
 * Reads a whole `multipart/form-data` body as Go's `Request.ParseMultipartForm(maxMemory)` does
 * (net/http request.go → mime/multipart formdata.go `readForm`): the boundary comes from the request's own
 * `Content-Type`; part headers and boundaries may end in CRLF or, when the first boundary line does, bare LF
 * (multipart.go `isBoundaryDelimiterLine`); values may use up to `maxMemory` + 10 MiB; file parts past what is left
 * of `maxMemory` go to a temporary file `multipart-*` in `tempDir`, which the caller removes with
 * {@link removeFormFiles} once the request is over (net/http's `finishRequest` does it for upstream).
 *
 * @throws {MultipartError} with Go's error text, for every body Go refuses (upstream then answers 500)
 */
export async function readMultipartForm(
  body: Buffer,
  options: { readonly contentType: string; readonly maxMemory: number; readonly tempDir: string },
): Promise<MultipartForm> {
  const media = parseMediaType(options.contentType);
  if ("error" in media || media.type !== "multipart/form-data") {
    throw new MultipartError("request Content-Type isn't multipart/form-data");
  }
  const boundary = media.params.get("boundary");
  if (boundary === undefined) throw new MultipartError("no multipart boundary param in Content-Type");
  const reader = new MultipartReader(body, boundary);
  const values = new Map<string, string[]>();
  const files = new Map<string, FormFile[]>();
  const form: MultipartForm = { values, files };
  const { maxMemory } = options;
  let maxFileMemoryBytes = maxMemory;
  let maxMemoryBytes = maxMemory + 10 * 1024 * 1024;
  if (maxMemoryBytes <= 0) maxMemoryBytes = maxMemory < 0 ? 0 : Number.MAX_SAFE_INTEGER;
  let maxHeaders = MAX_MIME_HEADERS;
  let parts = MAX_PARTS;
  try {
    for (;;) {
      const part = reader.nextPart(maxMemoryBytes, maxHeaders);
      if (part === undefined) break;
      if (parts <= 0) throw new MultipartError("multipart: message too large");
      parts--;
      const disposition = parseMediaType(part.header.get("Content-Disposition")?.[0] ?? "");
      const params = "error" in disposition ? new Map<string, string>() : disposition.params;
      const name =
        "error" in disposition || disposition.type !== "form-data" ? "" : (params.get("name") ?? "");
      if (name === "") continue;
      const filename = params.get("filename") ?? "";
      maxMemoryBytes -= Buffer.byteLength(name) + MAP_ENTRY_OVERHEAD;
      if (maxMemoryBytes < 0) throw new MultipartError("multipart: message too large");
      const content = part.read();
      if (filename === "") {
        maxMemoryBytes -= content.length;
        if (maxMemoryBytes < 0) throw new MultipartError("multipart: message too large");
        append(values, name, content.toString("utf8"));
        continue;
      }
      maxMemoryBytes -= mimeHeaderSize(part.header) + MAP_ENTRY_OVERHEAD + FILE_HEADER_SIZE;
      if (maxMemoryBytes < 0) throw new MultipartError("multipart: message too large");
      for (const v of part.header.values()) maxHeaders -= v.length;
      if (content.length > maxFileMemoryBytes) {
        const tmpfile = join(options.tempDir, `multipart-${randomInt(2 ** 32)}`);
        // Added before the write, so a failed write is cleaned up with the rest.
        const file: FormFile = { filename, header: part.header, size: content.length, tmpfile };
        append(files, name, file);
        await writeFile(tmpfile, content, { flag: "wx", mode: 0o600 });
      } else {
        append(files, name, { filename, header: part.header, size: content.length, content });
        maxFileMemoryBytes -= content.length;
        maxMemoryBytes -= content.length;
      }
    }
  } catch (error) {
    await removeFormFiles(form);
    if (error instanceof MultipartError) throw error;
    throw new MultipartError((error as Error).message, { cause: error });
  }
  return form;
}

/** The bytes of a file part, from memory or from its temporary file (Go's `FileHeader.Open`). */
export async function readFormFile(file: FormFile): Promise<Buffer> {
  if (file.content !== undefined) return file.content;
  return readFile(file.tmpfile ?? "");
}

/** Removes the temporary files of a form (Go's `Form.RemoveAll`); a file already gone is not an error. */
export async function removeFormFiles(form: MultipartForm): Promise<void> {
  for (const list of form.files.values()) {
    for (const file of list) if (file.tmpfile !== undefined) await rm(file.tmpfile, { force: true });
  }
}

function append<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/** formdata.go `mimeHeaderSize`: what ReadForm charges a file part's header against its memory budget. */
function mimeHeaderSize(header: MimeHeader): number {
  let size = 400;
  for (const [key, values] of header) {
    size += key.length + MAP_ENTRY_OVERHEAD;
    for (const v of values) size += Buffer.byteLength(v);
  }
  return size;
}

const LF = 0x0a;
const CR = 0x0d;

/** One part: its header and a reader of its body (quoted-printable decoded, as `NextPart` does). */
interface Part {
  readonly header: MimeHeader;
  /** The part's body; throws Go's read error when the body has no closing boundary. */
  read(): Buffer;
}

/**
 * mime/multipart's `Reader` over a body already in memory. The state (position, parts read, and the line ending
 * chosen by the first boundary line) is what `nextPart` carries from call to call.
 */
class MultipartReader {
  readonly #buf: Buffer;
  #pos = 0;
  #partsRead = 0;
  #nl = Buffer.from("\r\n");
  #nlDashBoundary: Buffer;
  readonly #dashBoundary: Buffer;
  readonly #dashBoundaryDash: Buffer;
  /** Where the current part's body ends: the next `nextPart` skips there, as Go's `Part.Close` drains it. */
  #currentEnd: number | undefined;

  constructor(buf: Buffer, boundary: string) {
    this.#buf = buf;
    this.#dashBoundary = Buffer.from(`--${boundary}`);
    this.#dashBoundaryDash = Buffer.from(`--${boundary}--`);
    this.#nlDashBoundary = Buffer.from(`\r\n--${boundary}`);
  }

  nextPart(maxHeaderSize: number, maxHeaders: number): Part | undefined {
    if (this.#currentEnd !== undefined) this.#pos = this.#currentEnd;
    this.#currentEnd = undefined;
    if (this.#dashBoundary.length === 2) throw new MultipartError("multipart: boundary is empty");
    let expectNewPart = false;
    for (;;) {
      const { line, error } = this.#readSlice();
      if (error === "EOF" && this.#isFinalBoundary(line)) return undefined;
      if (error !== undefined) throw new MultipartError(`multipart: NextPart: ${error}`);
      if (this.#isBoundaryDelimiterLine(line)) {
        this.#partsRead++;
        return this.#newPart(maxHeaderSize, maxHeaders);
      }
      if (this.#isFinalBoundary(line)) return undefined;
      if (expectNewPart) {
        throw new MultipartError(`multipart: expecting a new Part; got line ${goQuote(line)}`);
      }
      if (this.#partsRead === 0) continue;
      // The newline between a part's body and the next boundary line.
      if (line.equals(this.#nl)) {
        expectNewPart = true;
        continue;
      }
      throw new MultipartError(`multipart: unexpected line in Next(): ${goQuote(line)}`);
    }
  }

  /** bufio's `ReadSlice('\n')` with a 4096-byte buffer: a longer line is `buffer full`. */
  #readSlice(): { line: Buffer; error?: string } {
    const start = this.#pos;
    const nl = this.#buf.indexOf(LF, start);
    const end = nl < 0 ? this.#buf.length : nl + 1;
    if (end - start > PEEK_BUFFER_SIZE || (nl < 0 && end - start === PEEK_BUFFER_SIZE)) {
      this.#pos = start + PEEK_BUFFER_SIZE;
      return { line: this.#buf.subarray(start, this.#pos), error: "bufio: buffer full" };
    }
    this.#pos = end;
    return nl < 0
      ? { line: this.#buf.subarray(start, end), error: "EOF" }
      : { line: this.#buf.subarray(start, end) };
  }

  /** `^--boundary--[ \t]*(\r\n)?$` (with the chosen line ending). */
  #isFinalBoundary(line: Buffer): boolean {
    if (!startsWith(line, this.#dashBoundaryDash)) return false;
    const rest = skipLinearWhite(line.subarray(this.#dashBoundaryDash.length));
    return rest.length === 0 || rest.equals(this.#nl);
  }

  #isBoundaryDelimiterLine(line: Buffer): boolean {
    if (!startsWith(line, this.#dashBoundary)) return false;
    const rest = skipLinearWhite(line.subarray(this.#dashBoundary.length));
    // The first boundary line ending in a bare LF switches the reader to bare-LF mode; against RFC 2046 but seen
    // in practice (Plex sends it).
    if (this.#partsRead === 0 && rest.length === 1 && rest[0] === LF) {
      this.#nl = this.#nl.subarray(1);
      this.#nlDashBoundary = this.#nlDashBoundary.subarray(1);
    }
    return rest.equals(this.#nl);
  }

  #newPart(maxHeaderSize: number, maxHeaders: number): Part | undefined {
    const header = readMimeHeader(this, maxHeaderSize, maxHeaders);
    // A header cut off by the end of the body is textproto's io.EOF, which ReadForm takes for the end of the form.
    if (header === undefined) return undefined;
    const start = this.#pos;
    const { end, truncated } = this.#scanBody(start);
    this.#currentEnd = end;
    const qp = (header.get("Content-Transfer-Encoding")?.[0] ?? "").toLowerCase() === "quoted-printable";
    if (qp) header.delete("Content-Transfer-Encoding");
    const raw = this.#buf.subarray(start, end);
    return {
      header,
      read: () => {
        const body = qp ? decodeQuotedPrintable(raw, truncated) : raw;
        if (truncated) throw new MultipartError("unexpected EOF");
        return body;
      },
    };
  }

  /**
   * multipart.go `scanUntilBoundary` over the whole rest of the body: the part ends before the first
   * `\r\n--boundary` (or `\n--boundary`) followed by space, tab, CR, LF, `--` or the end of the body; at the very
   * start of a part a bare `--boundary` ends it too (an empty body).
   */
  #scanBody(start: number): { end: number; truncated: boolean } {
    let from = start;
    if (startsWith(this.#buf.subarray(start), this.#dashBoundary)) {
      if (this.#matchAfterPrefix(start, this.#dashBoundary) === 1) return { end: start, truncated: false };
      from = start + this.#dashBoundary.length;
    } else if (startsWith(this.#dashBoundary, this.#buf.subarray(start))) {
      return { end: start, truncated: true };
    }
    for (;;) {
      const at = this.#buf.indexOf(this.#nlDashBoundary, from);
      if (at < 0) return { end: this.#buf.length, truncated: true };
      if (this.#matchAfterPrefix(at, this.#nlDashBoundary) === 1) return { end: at, truncated: false };
      from = at + this.#nlDashBoundary.length;
    }
  }

  #matchAfterPrefix(at: number, prefix: Buffer): 1 | -1 {
    const after = at + prefix.length;
    if (after === this.#buf.length) return 1;
    const c = this.#buf[after];
    if (c === 0x20 || c === 0x09 || c === CR || c === LF) return 1;
    if (c === 0x2d && after + 1 < this.#buf.length && this.#buf[after + 1] === 0x2d) return 1;
    return -1;
  }

  /** textproto's `readLineSlice`: one line without its `\n` or `\r\n`; undefined at the end of the body. */
  readLine(): Buffer | undefined {
    if (this.#pos >= this.#buf.length) return undefined;
    const nl = this.#buf.indexOf(LF, this.#pos);
    const end = nl < 0 ? this.#buf.length : nl;
    const line = this.#buf.subarray(this.#pos, end);
    this.#pos = nl < 0 ? end : nl + 1;
    return line.length > 0 && line[line.length - 1] === CR && nl >= 0 ? line.subarray(0, -1) : line;
  }

  peekByte(): number | undefined {
    return this.#buf[this.#pos];
  }

  skipSpace(): number {
    let n = 0;
    while (this.#buf[this.#pos] === 0x20 || this.#buf[this.#pos] === 0x09) {
      this.#pos++;
      n++;
    }
    return n;
  }
}

/**
 * textproto's `ReadMIMEHeader` as Go 1.19.8 has it: continuation lines folded with one space, a line without a colon
 * an error, a first line starting with white space an error, keys canonicalised only when they are tokens (so
 * `Content-Disposition :` is another header), values with leading white space removed.
 */
function readMimeHeader(
  reader: MultipartReader,
  maxSize: number,
  maxHeaders: number,
): Map<string, string[]> | undefined {
  const header = new Map<string, string[]>();
  let budget = maxSize - 400;
  let count = maxHeaders;
  const first = reader.peekByte();
  if (first === 0x20 || first === 0x09) {
    const line = reader.readLine();
    if (line === undefined) return undefined;
    throw new MultipartError(`malformed MIME header initial line: ${line.toString("utf8")}`);
  }
  for (;;) {
    const line = reader.readLine();
    if (line === undefined) return undefined;
    if (line.length === 0) return header;
    if (!line.includes(0x3a))
      throw new MultipartError(`malformed MIME header: missing colon: ${goQuote(line)}`);
    let kv = trimWhite(line).toString("utf8");
    while (reader.skipSpace() > 0) {
      const more = reader.readLine();
      if (more === undefined) break;
      kv += ` ${trimWhite(more).toString("utf8")}`;
    }
    const colon = kv.indexOf(":");
    const key = canonicalHeaderKey(kv.slice(0, colon));
    if (key === "") continue;
    count--;
    if (count < 0) throw new MultipartError("multipart: message too large");
    const value = kv.slice(colon + 1).replace(/^[ \t]+/, "");
    const values = header.get(key);
    if (values === undefined) budget -= key.length + MAP_ENTRY_OVERHEAD;
    budget -= Buffer.byteLength(value);
    if (budget < 0) throw new MultipartError("multipart: message too large");
    if (values === undefined) header.set(key, [value]);
    else values.push(value);
  }
}

/** mime/quotedprintable's `Reader`: `=XX` (either case), soft line breaks, trailing white space dropped. */
function decodeQuotedPrintable(raw: Buffer, truncated: boolean): Buffer {
  const out: number[] = [];
  let pos = 0;
  while (pos < raw.length) {
    const nl = raw.indexOf(LF, pos);
    const lineEnd = nl < 0 ? raw.length : nl + 1;
    const whole = raw.subarray(pos, lineEnd);
    pos = lineEnd;
    let end = whole.length;
    while (end > 0 && [0x0a, 0x0d, 0x20, 0x09].includes(whole[end - 1] ?? 0)) end--;
    let line = whole.subarray(0, end);
    const stripped = whole.subarray(end);
    let suffix: number[] = [];
    if (line.length > 0 && line[line.length - 1] === 0x3d) {
      line = line.subarray(0, -1);
      const atEnd = pos >= raw.length && !truncated;
      if (
        !(
          stripped[0] === LF ||
          (stripped[0] === CR && stripped[1] === LF) ||
          (stripped.length === 0 && atEnd)
        )
      ) {
        throw new MultipartError(`quotedprintable: invalid bytes after =: ${goQuote(stripped)}`);
      }
    } else if (nl >= 0) {
      suffix = whole[whole.length - 2] === CR ? [CR, LF] : [LF];
    }
    for (let i = 0; i < line.length; i++) {
      const b = line[i] ?? 0;
      if (b === 0x3d) {
        const hex = line.subarray(i + 1, i + 3).toString("latin1");
        if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
          out.push(Number.parseInt(hex, 16));
          i += 2;
          continue;
        }
        // Not an escape: a literal `=`, unless nothing or only the line end follows it.
        const next = i + 1 < line.length ? line[i + 1] : suffix[0];
        if (next !== undefined && next !== CR && next !== LF) {
          out.push(b);
          continue;
        }
        throw new MultipartError(
          hex.length < 2
            ? "unexpected EOF"
            : `quotedprintable: invalid quoted-printable hex byte ${goHexByte(line[i + 1] ?? 0)}`,
        );
      }
      if (b !== 0x09 && b !== CR && b !== LF && b < 0x80 && (b < 0x20 || b > 0x7e)) {
        throw new MultipartError(`quotedprintable: invalid unescaped byte ${goHexByte(b)} in body`);
      }
      out.push(b);
    }
    out.push(...suffix);
  }
  return Buffer.from(out);
}

function goHexByte(b: number): string {
  return `0x${b.toString(16).padStart(2, "0")}`;
}

function startsWith(buf: Buffer, prefix: Buffer): boolean {
  return buf.length >= prefix.length && buf.subarray(0, prefix.length).equals(prefix);
}

function skipLinearWhite(buf: Buffer): Buffer {
  let i = 0;
  while (buf[i] === 0x20 || buf[i] === 0x09) i++;
  return buf.subarray(i);
}

function trimWhite(buf: Buffer): Buffer {
  let start = 0;
  let end = buf.length;
  const white = (b: number | undefined) => b === 0x20 || b === 0x09 || b === CR || b === LF;
  while (start < end && white(buf[start])) start++;
  while (end > start && white(buf[end - 1])) end--;
  return buf.subarray(start, end);
}
