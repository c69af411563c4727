import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";

// How Go's net/http server refuses a request it cannot read (server.go `(c *conn) serve`: "431 Request Header
// Fields Too Large", "505 HTTP Version Not Supported: unsupported protocol version", "501 Not Implemented"
// for an unsupported transfer coding, "400 Bad Request" otherwise). node's parser refuses the same requests with an
// `HPE_*` code; this is the one table both servers map those codes through.

/** A parser error as node's `clientError` event hands it over. */
export interface ParserError {
  code?: string;
  reason?: string;
}

/** Options of `goParserRefusal`. */
export interface GoParserRefusalOptions {
  /**
   * The status line for a malformed chunked body. Go meets that error only when the handler reads the body, so the
   * answer is the application's (webhook's handler and pushgateway's differ).
   * @default "400 Bad Request"
   */
  bodyError?: string;
}

// Parser errors that arise while the body is read (chunk sizes, extensions, the body's own framing).
const BODY_ERRORS = new Set([
  "HPE_INVALID_CHUNK_SIZE",
  "HPE_CHUNK_EXTENSIONS_OVERFLOW",
  "HPE_INVALID_EOF_STATE",
  "HPE_STRICT",
]);

/**
 * A complete answer as Go writes it when it refuses a request before any handler: the status text is also the body,
 * `Connection: close`, no `Date`.
 */
export function goErrorResponse(status: string, body: string = status): string {
  return `HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${body}`;
}

/** The status line (and body, where it differs) Go's server answers to a request node's parser refused. */
export function goParserRefusalStatus(
  error: ParserError,
  options: GoParserRefusalOptions = {},
): { status: string; body?: string } {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return { status: "431 Request Header Fields Too Large" };
    case "HPE_INVALID_VERSION":
      return { status: "505 HTTP Version Not Supported: unsupported protocol version" };
    case "HPE_INVALID_TRANSFER_ENCODING":
      // Go refuses a transfer coding other than chunked with 501; node also refuses Transfer-Encoding beside
      // Content-Length (a smuggling guard Go does not have), kept as a 400.
      return /content-length/i.test(error.reason ?? "")
        ? { status: "400 Bad Request" }
        : { status: "501 Not Implemented", body: "Unsupported transfer encoding" };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: "408 Request Timeout" };
    default:
      if (error.code !== undefined && BODY_ERRORS.has(error.code))
        return { status: options.bodyError ?? "400 Bad Request" };
      return { status: "400 Bad Request" };
  }
}

/** `goErrorResponse` of `goParserRefusalStatus`: the bytes to write before closing the connection. */
export function goParserRefusal(error: ParserError, options: GoParserRefusalOptions = {}): string {
  const { status, body } = goParserRefusalStatus(error, options);
  return goErrorResponse(status, body ?? status);
}

/**
 * Go's `DefaultMaxHeaderBytes` (1 MiB) plus the 4 KiB slack its reader allows (server.go `initialReadLimitSize`):
 * the request line and headers Go reads before answering 431, where node stops at 16 KiB.
 */
export const GO_MAX_HEADER_BYTES = (1 << 20) + 4096;

/**
 * node:http server options that read what Go reads: Go's header limit, and a missing `Host` left to
 * {@link refuseMissingHost} (node's own refusal is a bare 400 without Go's text).
 */
export const GO_PARSER_LIMITS = { maxHeaderSize: GO_MAX_HEADER_BYTES, requireHostHeader: false } as const;

/** Go's answer to an HTTP/1.1 request without `Host` (server.go readRequest), before any handler runs. */
export const MISSING_HOST_REFUSAL = goErrorResponse("400 Bad Request: missing required Host header");

/**
 * As Go's `closeWriteAndWait`: the answer (if any), then a FIN, and the close a little later, so request bytes still
 * unread do not turn the close into a reset that loses the answer. Nothing more is read from the connection as a
 * request.
 */
export function endAndClose(socket: Duplex, answer?: string): void {
  if (answer === undefined) socket.end();
  else socket.end(answer);
  setTimeout(() => socket.destroy(), 500).unref();
}

/**
 * Refuses an HTTP/1.1 request without `Host` as Go does (its text, then the connection closed); true when it did,
 * and the request must not be served.
 */
export function refuseMissingHost(req: IncomingMessage): boolean {
  if (req.httpVersion !== "1.1" || req.headers.host !== undefined) return false;
  endAndClose(req.socket, MISSING_HOST_REFUSAL);
  return true;
}

/**
 * A node:http `clientError` handler's answer, as Go's server answers a request it cannot read: the refusal from
 * {@link goParserRefusal}, then the close. A socket that already had bytes written (an answer under way) or cannot
 * be written is only destroyed: a refusal there would corrupt the stream.
 */
export function answerClientError(
  error: ParserError,
  socket: Duplex,
  options: GoParserRefusalOptions = {},
): void {
  if (!socket.writable || (socket as Partial<Socket>).bytesWritten !== 0) {
    socket.destroy();
    return;
  }
  endAndClose(socket, goParserRefusal(error, options));
}

/**
 * net/http's answer to a plain HTTP request on a TLS listener (server.go `(c *conn) serve`, on a
 * tls.RecordHeaderError whose record header looks like HTTP), written on the raw connection before it is closed.
 */
export const PLAIN_HTTP_ON_TLS_ANSWER =
  "HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n";

/** server.go `tlsRecordHeaderLooksLikeHTTP`: the five first bytes of the requests net/http answers that way. */
const HTTP_STARTS = new Set(["GET /", "HEAD ", "POST ", "PUT /", "OPTIO"]);

/**
 * True when the first five bytes of a connection to a TLS listener are a plain HTTP request's, as net/http's
 * `tlsRecordHeaderLooksLikeHTTP` decides: then {@link PLAIN_HTTP_ON_TLS_ANSWER} is the answer, else a bare close.
 */
export function tlsRecordHeaderLooksLikeHttp(header: Buffer): boolean {
  return header.length >= 5 && HTTP_STARTS.has(header.toString("latin1", 0, 5));
}
