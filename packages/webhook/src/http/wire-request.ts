// What an HTTP/1.x request head says, or how Go's server refuses it (where the head ends: head-scanner.ts; the body:
// body-reader.ts). Every rule follows Go's net/http as upstream's 2.8.0 build runs it:
// request.go readRequest/parseRequestLine/ParseHTTPVersion, server.go (*conn).readRequest, transfer.go
// readTransfer/fixLength/parseTransferEncoding, internal/chunked.go, net/url ParseRequestURI and
// httpguts.ValidHostHeader. Where Go is lenient and we are not (a bare LF line end, a folded header line, a byte
// past 0x7e in the target, an empty header name) the answer is Go's plain 400: refusing is the safe side.
// Everything is read incrementally, each byte looked at a bounded number of times, so a slow or endless client
// costs time linear in what it sends.
import { goErrorResponse, MISSING_HOST_REFUSAL } from "@local/go-compat/http-refusal";

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

/** Go's plain 400. */
export const BAD_REQUEST: Refusal = { refusal: goErrorResponse("400 Bad Request") };
const statusError = (status: string, text: string): Refusal => ({
  refusal: goErrorResponse(`${status}: ${text}`),
});
/** 431, when the head does not fit Go's limit (`errTooLarge`). */
export const HEAD_TOO_LARGE: Refusal = { refusal: goErrorResponse("431 Request Header Fields Too Large") };
/** Go's answer to a transfer coding other than a lone `chunked` (`unsupportedTEError`). */
const UNSUPPORTED_CODING: Refusal = {
  refusal: goErrorResponse("501 Not Implemented", "Unsupported transfer encoding"),
};

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
function trimOws(text: string): string {
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
