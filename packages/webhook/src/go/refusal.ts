import type { Duplex } from "node:stream";

/**
 * How Go's server refuses a request it cannot read (net/http server.go): the status line, `Connection: close`, and the
 * status text as the body unless another is given.
 */
export function goErrorResponse(status: string, body = status): string {
  return `HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${body}`;
}

/**
 * As Go's `closeWriteAndWait`: the answer (if any), then a FIN, and the close a little later, so request bytes still
 * unread do not turn the close into a reset that loses the answer.
 */
export function endAndClose(socket: Duplex, answer?: string): void {
  if (answer === undefined) socket.end();
  else socket.end(answer);
  setTimeout(() => socket.destroy(), 500).unref();
}
