import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A server on 127.0.0.1 whose answers a test scripts by hand, for answers the fake code host never gives. */
export interface ScriptedServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Paths requested, in order. */
  readonly requests: string[];
  close(): Promise<void>;
}

/** Starts a server on port 0 that records each path and hands the request to `handle`. */
export async function startScriptedServer(
  handle: (path: string, req: IncomingMessage, res: ServerResponse) => void,
): Promise<ScriptedServer> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://127.0.0.1").pathname);
    requests.push(path);
    handle(path, req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** Answers `body` as JSON (a string is sent as it is, to script malformed answers). */
export function sendJson(res: ServerResponse, body: unknown, type = "application/json"): void {
  res.writeHead(200, { "content-type": type });
  res.end(typeof body === "string" ? body : JSON.stringify(body));
}
