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
