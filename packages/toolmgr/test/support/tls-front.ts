import { readFileSync } from "node:fs";
import { request } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { PACKAGE_DIR } from "./run-cli.js";

/** The test certificate (`test/fixtures/tls`), for `NODE_EXTRA_CA_CERTS`. */
export const TEST_CA = join(PACKAGE_DIR, "test/fixtures/tls/localhost.cert.pem");

/**
 * An https server on 127.0.0.1 that passes every request on to a plain http origin (the fake code host's API), so the
 * CLI talks https, as to the real API, and a proxy must tunnel it with CONNECT.
 */
export class TlsFront {
  #server: Server;
  #url = "";

  private constructor(origin: string) {
    this.#server = createServer(
      {
        cert: readFileSync(TEST_CA),
        key: readFileSync(join(PACKAGE_DIR, "test/fixtures/tls/localhost.key.pem")),
      },
      (req, res) => {
        const upstream = request(
          new URL(req.url ?? "/", origin),
          { method: req.method, headers: req.headers },
          (a) => {
            res.writeHead(a.statusCode ?? 502, a.headers);
            a.pipe(res);
          },
        );
        upstream.on("error", () => res.writeHead(502).end());
        req.pipe(upstream);
      },
    );
  }

  /** Starts the front on 127.0.0.1, port 0, for `origin`. */
  static async start(origin: string): Promise<TlsFront> {
    const front = new TlsFront(origin);
    await new Promise<void>((resolve) => front.#server.listen(0, "127.0.0.1", resolve));
    front.#url = `https://localhost:${(front.#server.address() as AddressInfo).port}`;
    return front;
  }

  /** `https://localhost:<port>`. */
  get url(): string {
    return this.#url;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise((r) => this.#server.close(r));
  }
}
