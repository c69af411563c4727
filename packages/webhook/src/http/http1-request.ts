import type { StreamedBody } from "../response/streamed-body.js";

/** One request read off the wire. */
export interface Http1Request {
  readonly method: string;
  /** The target as sent (Go's `RequestURI`). */
  readonly url: string;
  /** The path routed on, and the query without `?`. */
  readonly path: string;
  readonly query: string;
  readonly httpVersion: "1.0" | "1.1";
  /** Name, value, name, value… as sent (node's `rawHeaders` shape). */
  readonly rawHeaders: readonly string[];
  readonly body: Buffer;
  /**
   * Set when the body had not all arrived when the head did (`Expect: 100-continue` included): `body` is empty and
   * this reads it, sending `100 Continue` first where asked. As Go's handlers, one that never reads it lets the
   * connection drop the rest (see `http1-connection.ts`).
   */
  readonly readBody?: (() => Promise<Buffer>) | undefined;
  /** Once the body is read: Go's error when its framing broke (the body is then what came before it). */
  readonly bodyError: () => string | undefined;
}

/**
 * Gives the answer to the request being served; called at most once. Headers go out in the record's order, with
 * `Date` just before `Content-Length` (as Go's server writes it).
 */
export type Http1Respond = (
  status: number,
  headers: Readonly<Record<string, string | readonly string[]>>,
  body: string | Buffer,
  /** Beyond upstream: a body written while it is produced (chunked on HTTP/1.1, until close on HTTP/1.0). */
  stream?: StreamedBody,
) => void;
