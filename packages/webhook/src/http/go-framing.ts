// How Go's net/http server frames an answer (server.go chunkWriter.writeHeader, extraHeader.Write, Header.WriteSubset):
// the handler's headers sorted by name, then Date, Content-Length and a Content-Type Go sniffed itself; the
// request's protocol in the status line with Go's reason phrase; no Content-Length or body on 1xx/204/304, no body
// on HEAD; `Connection: close` on HTTP/1.1 when the connection ends, `Connection: keep-alive` on a kept HTTP/1.0 one.

import { goStatusReason } from "../go/status-text.js";
import type { HookResponse } from "../response/hook-response.js";

/** Answer headers as they go on the wire, in order: one value, or several for a repeated name. */
export type WireHeaders = Record<string, string | string[]>;

/** The types the handler sets where upstream lets Go sniff them (the `-debug` dump leaves them out too). */
const SNIFFABLE_TYPE = /^text\/(plain|html); charset=utf-8$/;

/** The index of the Content-Type Go would have sniffed on the wire (not set by upstream's handler), or -1. */
function sniffedIndex(response: HookResponse): number {
  return response.headers.findIndex(
    ([k, v], i) =>
      k === "Content-Type" &&
      (response.sniffedContentType
        ? i === response.headers.length - 1
        : !response.explicitContentType && SNIFFABLE_TYPE.test(v)),
  );
}

/**
 * A handler's answer as Go writes its headers: the handler's own sorted by name (a repeated name keeps its values
 * in order), then Content-Length and the sniffed Content-Type.
 */
export function goWireHeaders(response: HookResponse): { headers: WireHeaders; length: number } {
  const body = response.body;
  const length = typeof body === "string" ? Buffer.byteLength(body) : body.length;
  const sniffedAt = sniffedIndex(response);
  const own = response.headers
    .filter((_, i) => i !== sniffedAt)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const headers: WireHeaders = {};
  for (const [k, v] of own) {
    const existing = headers[k];
    headers[k] = existing === undefined ? v : Array.isArray(existing) ? [...existing, v] : [existing, v];
  }
  // A streamed body (beyond upstream) goes chunked: its length is not known when the head is written.
  if (response.stream === undefined) headers["Content-Length"] = String(length);
  if (sniffedAt >= 0) headers["Content-Type"] = (response.headers[sniffedAt] as readonly [string, string])[1];
  return { headers, length };
}

/** The headers upstream's handler set itself, for the `-debug` dump: without what Go adds on the wire. */
export function handlerSetHeaders(response: HookResponse): HookResponse["headers"] {
  const sniffedAt = sniffedIndex(response);
  return response.headers.filter((_, i) => i !== sniffedAt);
}

/** Go drops answer headers whose name is not a token (`Header.WriteSubset`). */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** What {@link goResponseHead} needs to know of the request and the connection. */
export interface FramingContext {
  readonly httpVersion: "1.0" | "1.1";
  readonly method: string;
  /** The connection ends after this answer. */
  readonly close: boolean;
  /**
   * The size of a whole answer's body, which the handler wrote before it returned (a streamed answer has none):
   * Go then sends a Content-Length only when the body fit its 2 KiB buffer, and none for an empty HEAD answer.
   */
  readonly bodyBytes?: number;
}

/** Go's `bufferBeforeChunkingSize`: a body written past it goes out before its length is known. */
const GO_BUFFER_BEFORE_CHUNKING = 2048;

/**
 * The status line and headers of an answer as Go writes them (`Date` just before `Content-Length`), whether a body
 * may follow (not on 1xx, 204, 304, nor for HEAD), whether it goes chunked, and whether the connection must end.
 */
export function goResponseHead(
  status: number,
  headers: Readonly<Record<string, string | readonly string[]>>,
  request: FramingContext,
): { head: string; bodyAllowed: boolean; chunked: boolean; close: boolean } {
  if (!Number.isInteger(status) || status < 100 || status > 999)
    throw new RangeError(`invalid status code ${status}`);
  // bodyAllowedForStatus
  const allowed = !(status < 200 || status === 204 || status === 304);
  const isHead = request.method === "HEAD";
  const bytes = request.bodyBytes;
  // chunkWriter.writeHeader: the length is known only when the handler returned with the body still buffered.
  const lengthKnown = bytes === undefined || (bytes <= GO_BUFFER_BEFORE_CHUNKING && !(isHead && bytes === 0));
  const unframed = !lengthKnown && allowed && !isHead;
  const chunked = unframed && request.httpVersion === "1.1";
  // HTTP/1.0 cannot chunk: the body ends with the connection, and no Connection header says so.
  const close = request.close || (unframed && request.httpVersion === "1.0");
  let head = `HTTP/${request.httpVersion} ${status} ${goStatusReason(status)}\r\n`;
  let dated = false;
  for (const name of Object.keys(headers)) {
    if (name === "Content-Length") {
      head += `Date: ${httpDate()}\r\n`;
      dated = true;
      if (!allowed || !lengthKnown) continue;
    }
    // A status without a body takes no write, so Go sniffs no type (the one after Content-Length); on 304
    // suppressedHeaders drops the handler's own Content-Type too.
    if (!allowed && name === "Content-Type" && (dated || status === 304)) continue;
    head += headerLines(name, headers[name]);
  }
  if (!dated) head += `Date: ${httpDate()}\r\n`;
  if (close && request.httpVersion === "1.1" && !("Connection" in headers)) head += "Connection: close\r\n";
  else if (!close && request.httpVersion === "1.0") head += "Connection: keep-alive\r\n";
  if (chunked) head += "Transfer-Encoding: chunked\r\n";
  return { head: `${head}\r\n`, bodyAllowed: allowed && !isHead, chunked, close };
}

/**
 * The informational answer Go 1.19 writes when a handler sets a 1xx status (`response.WriteHeader`): its status line
 * and the handler's own headers (those before `Content-Length` in a {@link goWireHeaders} record), no Date; the
 * answer itself then goes out as a 200 (the handler's first write). Upstream's success and mismatch codes 100-103
 * take this path.
 */
export function goInformationalHead(
  status: number,
  headers: Readonly<Record<string, string | readonly string[]>>,
  httpVersion: string,
): string {
  let head = `HTTP/${httpVersion} ${status} ${goStatusReason(status)}\r\n`;
  for (const name of Object.keys(headers)) {
    if (name === "Content-Length") break;
    if (name !== "Transfer-Encoding") head += headerLines(name, headers[name]);
  }
  return `${head}\r\n`;
}

/** One header's lines as Go's `Header.Write` makes them: CR and LF become spaces, the value is trimmed. */
function headerLines(name: string, values: string | readonly string[] | undefined): string {
  if (values === undefined || !validName(name)) return "";
  if (typeof values === "string") return `${name}: ${wireValue(values)}\r\n`;
  let lines = "";
  for (const value of values) lines += `${name}: ${wireValue(value)}\r\n`;
  return lines;
}

/** Names already found to be tokens: the same few names come back on every answer. */
const validNames = new Set<string>();

function validName(name: string): boolean {
  if (validNames.has(name)) return true;
  if (!HEADER_NAME.test(name)) return false;
  if (validNames.size < 256) validNames.add(name);
  return true;
}

const LINE_BREAKS = /[\r\n]/g;
const EDGE_BLANKS = /^[ \t]+|[ \t]+$/g;

/** A value as `Header.Write` puts it on the wire: CR and LF as spaces, blanks at either end trimmed. */
function wireValue(value: string): string {
  const clean = value.includes("\r") || value.includes("\n") ? value.replace(LINE_BREAKS, " ") : value;
  const last = clean.charCodeAt(clean.length - 1);
  const first = clean.charCodeAt(0);
  // Most values have no blank at either end, and need no regex at all.
  if (first !== 0x20 && first !== 0x09 && last !== 0x20 && last !== 0x09) return clean;
  return clean.replace(EDGE_BLANKS, "");
}

let dateSecond = -1;
let dateText = "";

/** The `Date` header, formatted once a second. */
function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(now).toUTCString();
  }
  return dateText;
}
