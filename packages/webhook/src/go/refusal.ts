import type { Duplex } from "node:stream";

/**
 * As Go's `closeWriteAndWait`: the answer (if any), then a FIN, and the close a little later, so request bytes still
 * unread do not turn the close into a reset that loses the answer.
 */
export function endAndClose(socket: Duplex, answer?: string): void {
  if (answer === undefined) socket.end();
  else socket.end(answer);
  setTimeout(() => socket.destroy(), 500).unref();
}
