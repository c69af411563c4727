import type { Socket } from "node:net";

/** Sockets holding answers written during this turn of the event loop, sent together once it is over. */
const corked = new Set<Socket>();

/**
 * Writes a kept-alive connection's answer at the end of this turn of the event loop, with the answers to every other
 * request read in the same turn. Each write wakes the client, and on a busy machine the woken client takes the CPU
 * from the server's one thread right away; sent together, the answers cost one such switch per turn instead of one
 * per request (bench/webhook/README.md). The bytes are the same, and each socket's own order is kept.
 */
export function writeAtEndOfTurn(socket: Socket, data: string | Buffer): void {
  if (!corked.has(socket)) {
    if (corked.size === 0) setImmediate(flush);
    socket.cork();
    corked.add(socket);
  }
  socket.write(data);
}

/** Sends what {@link writeAtEndOfTurn} holds for `socket` now (before the connection is destroyed). */
export function sendNow(socket: Socket): void {
  if (!corked.delete(socket)) return;
  while (socket.writableCorked > 0) socket.uncork();
}

function flush(): void {
  for (const socket of corked) {
    while (socket.writableCorked > 0) socket.uncork();
  }
  corked.clear();
}
