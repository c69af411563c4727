/**
 * webhook's answer to a body past `-max-body-bytes` (beyond upstream, off by default): 413 with a short text, and
 * the connection closed, nothing served. Both request readers (http1-connection.ts and node:http's in server.ts)
 * send this one.
 */
export const BODY_TOO_LARGE = {
  status: 413,
  headers: { "Content-Type": "text/plain; charset=utf-8", "Content-Length": "23" },
  body: "Request body too large.",
} as const;

/**
 * Answers with a body up to this size go out in one write with their head: node would otherwise send a Buffer body
 * as a second chunk (1.5x the requests/s on small answers, bench/webhook/README.md).
 */
export const ONE_WRITE_BODY_BYTES = 16 * 1024;
