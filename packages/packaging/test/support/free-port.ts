import { createServer } from "node:net";

/**
 * A loopback port free right now, for programs that must be told a port (systemd-socket-activate, webhook, the
 * Pushgateway's --web.listen-address): the kernel picks it (port 0), then it is released for the program.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return address.port;
}
