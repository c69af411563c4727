import { createServer, request, type Server } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";

/**
 * A forward proxy on 127.0.0.1: CONNECT tunnels (https targets) and absolute-URI GETs (http targets), as squid or
 * tinyproxy serve them. It records what it was asked, so a test sees which requests went through it.
 */
export class LoopbackProxy {
  /** `CONNECT host:port` targets, in order. */
  readonly tunnels: string[] = [];
  /** Absolute URLs of plain http requests forwarded. */
  readonly forwarded: string[] = [];
  /** `authorization` headers seen on forwarded requests (a token must never be among them for a download). */
  readonly authorizations: string[] = [];
  #server: Server;
  #sockets = new Set<Socket>();
  #url = "";

  private constructor() {
    this.#server = createServer((req, res) => {
      const target = req.url ?? "";
      this.forwarded.push(target);
      if (req.headers.authorization !== undefined) this.authorizations.push(req.headers.authorization);
      const upstream = request(target, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on("error", () => res.writeHead(502).end());
      req.pipe(upstream);
    });
    this.#server.on("connect", (req, client: Socket, head: Buffer) => {
      const target = req.url ?? "";
      this.tunnels.push(target);
      const [host, port] = target.split(/:(?=\d+$)/);
      const upstream = connect(Number(port), host ?? "", () => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      for (const s of [client, upstream]) {
        this.#sockets.add(s);
        s.on("close", () => this.#sockets.delete(s));
      }
      upstream.on("error", () => client.destroy());
      client.on("error", () => upstream.destroy());
    });
  }

  /** Starts the proxy on 127.0.0.1, port 0. */
  static async start(): Promise<LoopbackProxy> {
    const proxy = new LoopbackProxy();
    await new Promise<void>((resolve) => proxy.#server.listen(0, "127.0.0.1", resolve));
    proxy.#url = `http://127.0.0.1:${(proxy.#server.address() as AddressInfo).port}`;
    return proxy;
  }

  /** `http://127.0.0.1:<port>`, for `HTTPS_PROXY`/`HTTP_PROXY`. */
  get url(): string {
    return this.#url;
  }

  /** Stops the proxy and drops every tunnel. */
  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    this.#server.closeAllConnections();
    await new Promise((r) => this.#server.close(r));
  }
}
