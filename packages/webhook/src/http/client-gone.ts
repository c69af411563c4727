import type { Duplex } from "node:stream";

/**
 * Calls `listener` once when the client of `socket` has gone: its connection closed, or it closed its side (as Go's
 * server cancels a request's context when the connection reads EOF), also when that happened already. Streamed
 * hooks watch this while their answer has not started (a run still queued, a command silent so far), so a client
 * that leaves then stops the run as one that leaves mid-stream does.
 *
 * @returns a function that stops watching
 */
export function watchClientGone(socket: Duplex, listener: () => void): () => void {
  let called = false;
  const gone = () => {
    if (called) return;
    called = true;
    unwatch();
    listener();
  };
  const unwatch = () => {
    socket.removeListener("end", gone);
    socket.removeListener("close", gone);
  };
  if (socket.readableEnded || socket.destroyed) {
    queueMicrotask(gone);
    return () => {
      called = true;
    };
  }
  socket.once("end", gone);
  socket.once("close", gone);
  return () => {
    called = true;
    unwatch();
  };
}
