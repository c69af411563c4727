import { createHash, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A small OCI distribution registry on 127.0.0.1, blobs only, as the spec shapes them: `HEAD`/`GET
 * /v2/<repo>/blobs/sha256:<hex>`, `POST /v2/<repo>/blobs/uploads/` (202 with a `Location`), `PUT <location>?digest=`
 * (201, the digest checked). With `auth`, every `/v2/` request needs a bearer token from `/token`, which takes basic
 * credentials (the Docker registry token flow). `files` are served at `/files/<path>` for URL-prefix mirrors.
 */
export class OciBlobServer {
  readonly blobs = new Map<string, Buffer>();
  /** Static files by path (below `/files/`). */
  readonly files = new Map<string, Buffer>();
  /** Tagged manifests by `<repo>:<tag>`, parsed. */
  readonly manifests = new Map<string, { config: { digest: string }; layers: { digest: string }[] }>();
  /** Requests by `METHOD path`. */
  readonly requests: string[] = [];
  #server: Server;
  #url = "";
  #uploads = new Set<string>();
  #auth: { user: string; password: string } | undefined;
  #tokens = new Set<string>();
  #authPulls: boolean;

  private constructor(auth: { user: string; password: string } | undefined, authPulls: boolean) {
    this.#auth = auth;
    this.#authPulls = authPulls;
    this.#server = createServer((req, res) => void this.#handle(req, res));
  }

  /** Starts the registry; with `auth`, pushes (and with `authPulls` pulls too) need a token earned with them. */
  static async start(
    auth?: { user: string; password: string },
    options: { authPulls?: boolean } = {},
  ): Promise<OciBlobServer> {
    const server = new OciBlobServer(auth, options.authPulls === true);
    await new Promise<void>((r) => server.#server.listen(0, "127.0.0.1", r));
    server.#url = `127.0.0.1:${(server.#server.address() as AddressInfo).port}`;
    return server;
  }

  /** `host:port`. */
  get host(): string {
    return this.#url;
  }

  /** Replaces a stored blob's bytes (a corrupted or malicious mirror). */
  tamper(sha256: string): void {
    const data = this.blobs.get(sha256);
    if (data !== undefined) this.blobs.set(sha256, Buffer.concat([data, Buffer.from("tampered")]));
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise((r) => this.#server.close(r));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", `http://${this.#url}`);
    this.requests.push(`${req.method} ${url.pathname}`);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    if (url.pathname === "/token") {
      const expected = `Basic ${Buffer.from(`${this.#auth?.user}:${this.#auth?.password}`).toString("base64")}`;
      if (req.headers.authorization !== expected) return void res.writeHead(401).end();
      const token = randomUUID();
      this.#tokens.add(token);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ token }));
      return;
    }
    if (url.pathname.startsWith("/files/")) {
      const data = this.files.get(url.pathname.slice("/files/".length));
      if (data === undefined) return void res.writeHead(404).end();
      res.writeHead(200, { "content-length": data.length }).end(data);
      return;
    }
    // Anonymous pulls, authenticated pushes: how most team registries are set up.
    const write = req.method !== "GET" && req.method !== "HEAD";
    if (this.#auth !== undefined && (write || this.#authPulls) && url.pathname.startsWith("/v2/")) {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
      if (token === undefined || !this.#tokens.has(token)) {
        const repo = /^\/v2\/(.+?)\/blobs\//.exec(url.pathname)?.[1];
        // The /v2/ ping's challenge names no scope; a repository request's names the one it needs.
        const scope = repo === undefined ? "" : `,scope="repository:${repo}:pull,push"`;
        res
          .writeHead(401, {
            "www-authenticate": `Bearer realm="http://${this.#url}/token",service="test-registry"${scope}`,
          })
          .end();
        return;
      }
    }
    if (url.pathname === "/v2/") return void res.writeHead(200).end("{}");
    const blob = /^\/v2\/(.+)\/blobs\/sha256:([0-9a-f]{64})$/.exec(url.pathname);
    if (blob && (req.method === "GET" || req.method === "HEAD")) {
      const data = this.blobs.get(blob[2] ?? "");
      if (data === undefined) return void res.writeHead(404).end();
      res.writeHead(200, { "content-length": data.length, "docker-content-digest": `sha256:${blob[2]}` });
      res.end(req.method === "GET" ? data : undefined);
      return;
    }
    const manifest = /^\/v2\/(.+)\/manifests\/([A-Za-z0-9_][A-Za-z0-9._-]{0,127})$/.exec(url.pathname);
    if (manifest && req.method === "PUT") {
      // As distribution does: every blob a manifest references must be in the registry already.
      const parsed = JSON.parse(body.toString()) as {
        config: { digest: string };
        layers: { digest: string }[];
      };
      const missing = [parsed.config, ...parsed.layers].filter((d) => !this.blobs.has(d.digest.slice(7)));
      if (missing.length > 0)
        return void res.writeHead(400).end('{"errors":[{"code":"MANIFEST_BLOB_UNKNOWN"}]}');
      this.manifests.set(`${manifest[1]}:${manifest[2]}`, parsed);
      res.writeHead(201).end();
      return;
    }
    const start = /^\/v2\/(.+)\/blobs\/uploads\/$/.exec(url.pathname);
    if (start && req.method === "POST") {
      const id = randomUUID();
      this.#uploads.add(id);
      res.writeHead(202, { location: `/v2/${start[1]}/blobs/uploads/${id}` }).end();
      return;
    }
    const upload = /^\/v2\/(.+)\/blobs\/uploads\/([0-9a-f-]+)$/.exec(url.pathname);
    if (upload && req.method === "PUT" && this.#uploads.has(upload[2] ?? "")) {
      const digest = url.searchParams.get("digest") ?? "";
      const actual = createHash("sha256").update(body).digest("hex");
      if (digest !== `sha256:${actual}`)
        return void res.writeHead(400).end('{"errors":[{"code":"DIGEST_INVALID"}]}');
      this.blobs.set(actual, body);
      this.#uploads.delete(upload[2] ?? "");
      res.writeHead(201, { location: `/v2/${upload[1]}/blobs/sha256:${actual}` }).end();
      return;
    }
    res.writeHead(404).end();
  }
}
