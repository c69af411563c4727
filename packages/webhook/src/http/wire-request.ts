// The one HTTP/1.x request reader: where a request head ends, what it says (or how Go's server refuses it), and its
// body by Content-Length or in chunks. Every rule follows Go's net/http as upstream's 2.8.0 build runs it:
// request.go readRequest/parseRequestLine/ParseHTTPVersion, server.go (*conn).readRequest, transfer.go
// readTransfer/fixLength/parseTransferEncoding, internal/chunked.go, net/url ParseRequestURI and
// httpguts.ValidHostHeader. Where Go is lenient and we are not (a bare LF line end, a folded header line, a byte
// past 0x7e in the target, an empty header name) the answer is Go's plain 400: refusing is the safe side.
// Everything is read incrementally, each byte looked at a bounded number of times, so a slow or endless client
// costs time linear in what it sends.
import { GO_MAX_HEADER_BYTES, goErrorResponse, MISSING_HOST_REFUSAL } from "@local/go-compat/http-refusal";

/** Go's `maxPostHandlerReadBytes`: an unread body up to this size is read and dropped after the handler. */
export const DISCARD_LIMIT = 256 << 10;

/** How the body is framed. */
export type BodyFraming =
  | { readonly kind: "none" }
  | { readonly kind: "length"; readonly length: number }
  | { readonly kind: "chunked" };

/** A request head Go's server accepts. */
export interface RequestHead {
  readonly method: string;
  /** The request target as sent (Go's `RequestURI`). */
  readonly target: string;
  /** What the handler routes on: the target's path (for an absolute-form target, without scheme and host). */
  readonly path: string;
  /** The query without `?` ("" if none). */
  readonly query: string;
  /** `1.0`, or `1.1` for every HTTP/1.x from 1.1 on (Go answers those as HTTP/1.1). */
  readonly httpVersion: "1.0" | "1.1";
  /** Name, value, … as sent, values trimmed; a `Content-Length` beside chunked removed (as Go's fixLength). */
  readonly rawHeaders: readonly string[];
  readonly framing: BodyFraming;
  /** The client asked to close after this answer (or did not ask an HTTP/1.0 connection to stay open). */
  readonly close: boolean;
  /** `Expect: 100-continue` on HTTP/1.1 with a body: `100 Continue` is sent when the handler first reads it. */
  readonly expectContinue: boolean;
  /** An `Expect` Go does not know: answered 417, connection closed, nothing served. */
  readonly expectationFailed: boolean;
}

/** Go's answer to a request it cannot read: the bytes to write before closing the connection. */
export interface Refusal {
  readonly refusal: string;
}

const BAD_REQUEST: Refusal = { refusal: goErrorResponse("400 Bad Request") };
const statusError = (status: string, text: string): Refusal => ({
  refusal: goErrorResponse(`${status}: ${text}`),
});
/** 431, when the head does not fit Go's limit (`errTooLarge`). */
export const HEAD_TOO_LARGE: Refusal = { refusal: goErrorResponse("431 Request Header Fields Too Large") };
/** Go's answer to a transfer coding other than a lone `chunked` (`unsupportedTEError`). */
const UNSUPPORTED_CODING: Refusal = {
  refusal: goErrorResponse("501 Not Implemented", "Unsupported transfer encoding"),
};

const CRLFCRLF = Buffer.from("\r\n\r\n");
const LFLF = Buffer.from("\n\n");

/**
 * Finds where a request head ends in the bytes as they arrive, looking at each byte once (plus the three before
 * each chunk). Reports a head past Go's limit, and a blank line made of bare LFs, which Go would accept and we
 * refuse.
 */
export class HeadScanner {
  readonly #limit: number;
  #tail: Buffer = Buffer.alloc(0);
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

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Bytes `httpguts.ValidHostHeader` allows. */
const HOST = /^[0-9A-Za-z!$%&'()*+,\-.:;=[\]_~]*$/;
const BAD_ESCAPE = /%(?![0-9a-fA-F]{2})/;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/**
 * Reads a request head (request line and header lines, without the blank line; latin1) as Go's server does, in its
 * order of checks, or says how Go refuses it.
 */
export function parseHead(head: string): RequestHead | Refusal {
  const lines = head.split("\r\n");
  for (const line of lines) if (line.includes("\r") || line.includes("\n")) return BAD_REQUEST;
  // parseRequestLine: method, target and protocol cut at the first two spaces.
  const line = lines[0] as string;
  const sp1 = line.indexOf(" ");
  const sp2 = sp1 < 0 ? -1 : line.indexOf(" ", sp1 + 1);
  if (sp2 < 0) return BAD_REQUEST;
  const method = line.slice(0, sp1);
  const target = line.slice(sp1 + 1, sp2);
  const version = parseHttpVersion(line.slice(sp2 + 1));
  if (version === undefined || !TOKEN.test(method)) return BAD_REQUEST;
  const uri = parseTarget(target);
  if (uri === undefined) return BAD_REQUEST;
  const rawHeaders: string[] = [];
  const hosts: string[] = [];
  const lengths: string[] = [];
  const codings: string[] = [];
  let connection = "";
  let expect: string | undefined;
  let badName = false;
  let badValue = false;
  for (let i = 1; i < lines.length; i++) {
    const text = lines[i] as string;
    const colon = text.indexOf(":");
    // textproto.ReadMIMEHeader: a line without a colon is malformed; a folded line (leading blank) we refuse.
    if (colon <= 0 || text.charCodeAt(0) === 0x20 || text.charCodeAt(0) === 0x09) return BAD_REQUEST;
    const name = text.slice(0, colon);
    const value = trimOws(text.slice(colon + 1));
    if (!TOKEN.test(name)) badName = true;
    if (hasBadValueByte(value)) badValue = true;
    switch (name.toLowerCase()) {
      case "host":
        hosts.push(value);
        break;
      case "content-length":
        lengths.push(value);
        break;
      case "transfer-encoding":
        codings.push(value);
        break;
      case "connection":
        connection += `,${value}`;
        break;
      case "expect":
        expect ??= value;
        break;
    }
    rawHeaders.push(name, value);
  }
  if (hosts.length > 1) return BAD_REQUEST;
  // readTransfer: Go ignores Transfer-Encoding on HTTP/1.0 and takes only a lone `chunked` on HTTP/1.x.
  const chunked = codings.length > 0 && version.major === 1 && version.minor >= 1;
  if (chunked && (codings.length !== 1 || (codings[0] as string).toLowerCase() !== "chunked")) {
    return UNSUPPORTED_CODING;
  }
  const framing = bodyFraming(lengths, chunked);
  if (framing === undefined) return BAD_REQUEST;
  if (version.major !== 1)
    return statusError("505 HTTP Version Not Supported", "unsupported protocol version");
  const http11 = version.minor >= 1;
  if (http11 && hosts.length === 0 && method !== "CONNECT") {
    return { refusal: MISSING_HOST_REFUSAL };
  }
  if (hosts.length === 1 && !HOST.test(hosts[0] as string)) {
    return statusError("400 Bad Request", "malformed Host header");
  }
  if (badName) return statusError("400 Bad Request", "invalid header name");
  if (badValue) return statusError("400 Bad Request", "invalid header value");
  // shouldClose: HTTP/1.0 closes unless it asks for keep-alive; HTTP/1.1 when it asks to close.
  const close = http11
    ? hasToken(connection, "close")
    : hasToken(connection, "close") || !hasToken(connection, "keep-alive");
  const continues = expect !== undefined && hasToken(expect, "100-continue");
  const hasBody = framing.kind === "chunked" || (framing.kind === "length" && framing.length > 0);
  return {
    method,
    target,
    path: uri.path,
    query: uri.query,
    httpVersion: http11 ? "1.1" : "1.0",
    rawHeaders: chunked ? withoutContentLength(rawHeaders) : rawHeaders,
    framing,
    close,
    expectContinue: continues && http11 && hasBody,
    expectationFailed: !continues && expect !== undefined && expect !== "",
  };
}

/** A byte Go's `ValidHeaderFieldValue` refuses: a control other than HTAB, or DEL. */
function hasBadValueByte(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09) || c === 0x7f) return true;
  }
  return false;
}

/** A byte net/url refuses in a request target (a control, DEL), or, stricter than Go, one past 0x7e. */
function hasBadTargetByte(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c <= 0x20 || c >= 0x7f) return true;
  }
  return false;
}

/** Go's `ParseHTTPVersion`: `HTTP/X.Y` with one digit each. */
function parseHttpVersion(text: string): { major: number; minor: number } | undefined {
  if (text.length !== 8 || !text.startsWith("HTTP/") || text[6] !== ".") return undefined;
  const major = text.charCodeAt(5) - 0x30;
  const minor = text.charCodeAt(7) - 0x30;
  if (major < 0 || major > 9 || minor < 0 || minor > 9) return undefined;
  return { major, minor };
}

/**
 * Go's `url.ParseRequestURI` for the shapes it accepts: origin form (`/path?query`, bad `%` escapes refused), `*`,
 * and absolute form (`scheme://host/path`, routed on its path). Anything else, empty included, is refused.
 */
function parseTarget(target: string): { path: string; query: string } | undefined {
  if (target === "" || hasBadTargetByte(target)) return undefined;
  if (target === "*") return { path: "*", query: "" };
  let rest = target;
  if (!target.startsWith("/")) {
    const scheme = SCHEME.exec(target);
    if (scheme === null) return undefined;
    rest = target.slice(scheme[0].length);
    if (!rest.startsWith("//")) return undefined;
    // The authority runs to the first `/` or `?`; what follows is routed as an origin-form target would be.
    const authorityEnd = rest.slice(2).search(/[/?]/);
    rest = authorityEnd < 0 ? "" : rest.slice(2 + authorityEnd);
  }
  const q = rest.indexOf("?");
  const path = q < 0 ? rest : rest.slice(0, q);
  if (BAD_ESCAPE.test(path)) return undefined;
  return { path, query: q < 0 ? "" : rest.slice(q + 1) };
}

/** transfer.go fixLength for a request: the body's length, or undefined for what Go refuses with 400. */
function bodyFraming(lengths: readonly string[], chunked: boolean): BodyFraming | undefined {
  // Several Content-Length headers must all agree (Go's smuggling guard); a chunked body ignores them.
  const first = lengths[0];
  if (first !== undefined && lengths.some((l) => l !== first)) return undefined;
  if (chunked) return { kind: "chunked" };
  if (first === undefined || first === "") return { kind: "none" };
  // strconv.ParseUint(cl, 10, 63): digits only, below 2^63; past 2^53 no body could arrive anyway.
  if (!/^\d+$/.test(first) || first.length > 19) return undefined;
  const length = Number(first);
  if (length > Number.MAX_SAFE_INTEGER) return length < 2 ** 63 ? { kind: "length", length } : undefined;
  return length === 0 ? { kind: "none" } : { kind: "length", length };
}

/** Go's `hasToken`/`HeaderValuesContainsToken`: a comma- or blank-separated token, in any case. */
function hasToken(list: string, token: string): boolean {
  if (list === "") return false;
  for (const part of list.split(/[,\t ]+/)) if (part.toLowerCase() === token) return true;
  return false;
}

/** Without leading and trailing spaces and tabs (RFC 9110's OWS). */
export function trimOws(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && (text.charCodeAt(start) === 0x20 || text.charCodeAt(start) === 0x09)) start++;
  while (end > start && (text.charCodeAt(end - 1) === 0x20 || text.charCodeAt(end - 1) === 0x09)) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

function withoutContentLength(rawHeaders: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string;
    if (name.toLowerCase() !== "content-length") kept.push(name, rawHeaders[i + 1] as string);
  }
  return kept;
}

/** Go's chunked.go: a chunk-size line (with its `\n`) of 4096 bytes or more is refused. */
const MAX_CHUNK_LINE = 4096;
/** bufio's default buffer, within which the trailer's blank line must be seen (`seeUpcomingDoubleCRLF`). */
const MAX_TRAILER = 4096;

/** Where a body reader is. */
type BodyState = "done" | "reading" | "error";

/**
 * A request body read as it arrives, by Content-Length or in chunks exactly as Go's chunkedReader and readTrailer
 * take them. What was decoded before a framing error is kept: upstream serves it (`ioutil.ReadAll` returns it with
 * the error), and the connection then closes.
 */
export class BodyReader {
  readonly #framing: BodyFraming;
  #data: Buffer = Buffer.alloc(0);
  #size = 0;
  #remaining: number;
  #state: BodyState;
  /** Chunked: which part of the framing comes next. */
  #step: "size" | "data" | "crlf" | "trailer" = "size";
  #line: Buffer[] = [];
  #lineBytes = 0;

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
    this.#data = Buffer.alloc(0);
  }

  /** The client ended the connection before the body did: the body is what came, and it is an error. */
  end(): void {
    if (this.#state === "reading") this.#state = "error";
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
            this.#state = "error";
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
            if (crlf[0] !== 0x0d || crlf[1] !== 0x0a) this.#state = "error";
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
            this.#state = lines.every((l) => l.includes(":")) ? "done" : "error";
            return at + blank + 4 - before;
          }
          at += take;
          if (this.#lineBytes >= MAX_TRAILER) this.#state = "error";
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
    if (end > 16) {
      this.#state = "error";
      return;
    }
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
      if (digit < 0) {
        this.#state = "error";
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
    if (keep) {
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
