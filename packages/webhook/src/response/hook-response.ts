import type { StreamedBody } from "./streamed-body.js";

/** A response to write: what the handler answers, framed as Go frames it by `http/`. */
export interface HookResponse {
  readonly status: number;
  readonly headers: readonly (readonly [string, string])[];
  readonly body: string | Buffer;
  /** Set when no route matched: upstream's router answers those outside its logging middleware. */
  readonly unrouted?: true;
  /** The handler set `Content-Type` itself (Go otherwise sniffs it on the wire); only the `-debug` dump differs. */
  readonly explicitContentType?: true;
  /** The last `Content-Type` was sniffed from the body, as Go does on the wire; the `-debug` dump leaves it out. */
  readonly sniffedContentType?: true;
  /** The headers the `-debug` dump shows when they differ from the wire's (upstream set one after WriteHeader). */
  readonly dumpHeaders?: readonly (readonly [string, string])[];
  /** Beyond upstream: the body is written as it is produced (`body` is then empty); no Content-Length. */
  readonly stream?: StreamedBody;
}
