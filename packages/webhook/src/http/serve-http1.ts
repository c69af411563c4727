import type { Server } from "node:http";
import type { Socket } from "node:net";
import { Http1Connection, type Http1Options } from "./http1-connection.js";
import { sendNow } from "./write-batch.js";

/**
 * Serves every connection the server accepts with an {@link Http1Connection} instead of node:http's parser, and
 * makes the server's `closeIdleConnections`/`closeAllConnections` reach those connections too.
 */
export function serveHttp1(server: Server, options: Http1Options): void {
  const event = options.event ?? "connection";
  server.removeAllListeners(event);
  const idle = new Set<Socket>();
  const open = new Set<Socket>();
  // node:http closes its own idle connections on close(); these are not its own.
  const closeIdle = server.closeIdleConnections.bind(server);
  server.closeIdleConnections = () => {
    closeIdle();
    // An answer still waiting for the end of this turn goes out before the connection ends.
    for (const socket of idle) {
      sendNow(socket);
      socket.destroy();
    }
  };
  const closeAll = server.closeAllConnections.bind(server);
  server.closeAllConnections = () => {
    closeAll();
    for (const socket of open) socket.destroy();
  };
  server.on(event, (socket: Socket) => {
    open.add(socket);
    socket.once("close", () => {
      open.delete(socket);
      idle.delete(socket);
    });
    new Http1Connection(socket, {
      ...options,
      listening: () => server.listening,
      idle: (isIdle) => (isIdle ? idle.add(socket) : idle.delete(socket)),
    });
  });
}
