import { createServer } from "node:net";

/** A free 127.0.0.1 port (bound once and released), for a server under test to listen on. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
