import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** An asset of a fake release. */
export interface FakeAsset {
  readonly name: string;
  readonly data: Buffer;
  /** Whether the host records a digest for it (assets uploaded since 2025). @default true */
  readonly digest?: boolean;
}

/** A fake release. */
export interface FakeRelease {
  readonly tag: string;
  readonly draft?: boolean;
  readonly prerelease?: boolean;
  /**
   * `published_at`, ISO 8601. The GitHub shape always sends one (2026-01-01T00:00:00Z unless given: long before the
   * tests' clock); the block shape only when given, as a host without dates.
   */
  readonly publishedAt?: string;
  readonly assets: readonly FakeAsset[];
}

interface Repo {
  private: boolean;
  /** tag name → { commit, annotated } */
  tags: Map<string, { commit: string; annotated: boolean }>;
  releases: Map<string, FakeRelease & { ids: number[]; digests: string[] }>;
}

/** A canned answer for the next request whose path starts with `prefix`. */
interface Failure {
  readonly prefix: string;
  readonly status: number;
  readonly headers: Record<string, string>;
  remaining: number;
}

/**
 * A fake of the code-hosting REST API on 127.0.0.1, shaped like GitHub's: `git/matching-refs/tags/{prefix}`,
 * `git/tags/{sha}`, `releases/tags/{tag}`, `commits/{ref}` (also `Accept: application/vnd.github.sha`),
 * `repos/{o}/{r}` with `private`, `releases/assets/{id}`; public downloads at browser URLs on a web origin of their
 * own (as github.com is not api.github.com), redirected to a storage origin; private downloads only from the API
 * asset URL with `Accept: application/octet-stream` and the token, by a 302 to the storage origin. It counts
 * requests per path (`storage:` and `web:` prefixes for those origins) and records any request that carried the token
 * to a non-API origin.
 */
export class FakeCodeHost {
  readonly token = "test-token-0123456789";
  /** Path → number of requests. */
  readonly requests = new Map<string, number>();
  /** Every `authorization` header the API origin received (which token a client chose to send). */
  readonly apiAuthorizations: string[] = [];
  /** Descriptions of requests that carried the token to a non-API origin. */
  readonly tokenLeaks: string[] = [];
  /** Added latency per request (every origin), in milliseconds. */
  latencyMs = 0;
  /** API requests answered 304 Not Modified (a matching `If-None-Match`), by path; they cost no rate limit. */
  readonly notModified = new Map<string, number>();
  /** Storage downloads still to stall: half the body is sent, then nothing until the client gives up. */
  stallDownloads = 0;
  /**
   * `"block"` answers as nao1215/block's fake GitHub (internal/fakegh) does, as some GitHub-compatible hosts and
   * caching proxies do: assets carry only `name`, `browser_download_url`, `digest` and `size` (no API `url`, no
   * `id`), tag refs only `ref` (no `object`), and `commits/{ref}` answers `{"sha": …}` whatever the `Accept`.
   */
  shape: "github" | "block" = "github";
  #api: Server;
  #web: Server;
  #storage: Server;
  #apiUrl = "";
  #webUrl = "";
  #storageUrl = "";
  #repos = new Map<string, Repo>();
  #assets = new Map<number, { repo: string; asset: FakeAsset; tag: string }>();
  #nextId = 1;
  #failures: Failure[] = [];
  #holds: { readonly prefix: string; readonly gate: Promise<void> }[] = [];

  private constructor() {
    this.#api = createServer((req, res) => void this.#handleApi(req, res));
    this.#web = createServer((req, res) => void this.#handleWeb(req, res));
    this.#storage = createServer((req, res) => void this.#handleStorage(req, res));
  }

  /** Starts both servers on 127.0.0.1, port 0. */
  static async start(): Promise<FakeCodeHost> {
    const host = new FakeCodeHost();
    host.#apiUrl = await listen(host.#api);
    host.#webUrl = await listen(host.#web);
    host.#storageUrl = await listen(host.#storage);
    return host;
  }

  /** Base URL of the API (`CODEHOST_API_URL`). */
  get apiUrl(): string {
    return this.#apiUrl;
  }

  /** Declares a repository. */
  addRepo(name: string, options: { private?: boolean } = {}): void {
    this.#repos.set(name, { private: options.private ?? false, tags: new Map(), releases: new Map() });
  }

  /** Adds or moves a tag to a commit (40 hex digits derived from `commit` text when it is not one). */
  setTag(repo: string, tag: string, options: { commit?: string; annotated?: boolean } = {}): string {
    const commit = toSha(options.commit ?? `${repo}@${tag}`);
    this.#repo(repo).tags.set(tag, { commit, annotated: options.annotated ?? false });
    return commit;
  }

  /** Adds a release (and its tag, when missing). */
  addRelease(repo: string, release: FakeRelease): void {
    const r = this.#repo(repo);
    if (!r.tags.has(release.tag)) this.setTag(repo, release.tag);
    const ids = release.assets.map((asset) => {
      const id = this.#nextId++;
      this.#assets.set(id, { repo, asset, tag: release.tag });
      return id;
    });
    // Digested once here, not per answer: the lock benchmark runs this host in the measured process.
    r.releases.set(release.tag, { ...release, ids, digests: release.assets.map((a) => sha256(a.data)) });
  }

  /** Deletes a release and its assets, as projects delete old nightly builds (downloads then answer 404). */
  deleteRelease(repo: string, tag: string): void {
    const release = this.#repo(repo).releases.get(tag);
    for (const id of release?.ids ?? []) this.#assets.delete(id);
    this.#repo(repo).releases.delete(tag);
  }

  /**
   * Answers the next `count` API requests whose path starts with `prefix` with `status` and `headers`; status 0 resets
   * the connection instead of answering.
   */
  failNext(
    prefix: string,
    options: { status: number; headers?: Record<string, string>; count?: number },
  ): void {
    this.#failures.push({
      prefix,
      status: options.status,
      headers: options.headers ?? {},
      remaining: options.count ?? 1,
    });
  }

  /**
   * Holds every API request whose path starts with `prefix` (after counting it) until the returned function is
   * called: a `lock` kept half-way, to run something beside it at a known point.
   */
  hold(prefix: string): () => void {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const held = { prefix, gate };
    this.#holds.push(held);
    return () => {
      this.#holds = this.#holds.filter((h) => h !== held);
      release();
    };
  }

  /** Requests whose path starts with `prefix`. */
  count(prefix: string): number {
    let n = 0;
    for (const [path, c] of this.requests) if (path.startsWith(prefix)) n += c;
    return n;
  }

  /** Public download URL of an asset. */
  browserUrl(repo: string, tag: string, name: string): string {
    return `${this.#webUrl}/${repo}/releases/download/${tag}/${name}`;
  }

  /** Stops both servers. */
  async close(): Promise<void> {
    const servers = [this.#api, this.#web, this.#storage];
    for (const server of servers) server.closeAllConnections();
    await Promise.all(servers.map((server) => new Promise((r) => server.close(r))));
  }

  #repo(name: string): Repo {
    const repo = this.#repos.get(name);
    if (repo === undefined) throw new Error(`fake host: no repo ${name}`);
    return repo;
  }

  async #handleApi(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", this.#apiUrl);
    const path = decodeURIComponent(url.pathname);
    this.requests.set(path, (this.requests.get(path) ?? 0) + 1);
    if (this.latencyMs > 0) await new Promise((r) => setTimeout(r, this.latencyMs));
    await this.#holds.find((h) => path.startsWith(h.prefix))?.gate;
    const failure = this.#failures.find((f) => path.startsWith(f.prefix) && f.remaining > 0);
    if (failure) {
      failure.remaining--;
      if (failure.status === 0) {
        req.socket.destroy();
        return;
      }
      res.writeHead(failure.status, { "content-type": "application/json", ...failure.headers });
      res.end(
        JSON.stringify({ message: failure.status === 403 ? "API rate limit exceeded" : "Server Error" }),
      );
      return;
    }
    if (req.headers.authorization !== undefined) this.apiAuthorizations.push(req.headers.authorization);
    const authorized = req.headers.authorization === `Bearer ${this.token}`;
    const json = (_res: ServerResponse, body: unknown, type = "application/json") =>
      answer(req, res, {
        body: typeof body === "string" ? body : JSON.stringify(body),
        type,
        onNotModified: () => this.notModified.set(path, (this.notModified.get(path) ?? 0) + 1),
      });
    const m = /^\/repos\/([^/]+\/[^/]+)(?:\/(.*))?$/.exec(path);
    const repo = m ? this.#repos.get(m[1] ?? "") : undefined;
    if (!m || !repo || (repo.private && !authorized)) return notFound(res);
    const rest = m[2] ?? "";
    const repoName = m[1] ?? "";
    if (rest === "") return json(res, { full_name: repoName, private: repo.private });
    const refs = /^git\/matching-refs\/tags\/(.*)$/.exec(rest);
    if (refs) {
      const prefix = refs[1] ?? "";
      const list = [...repo.tags]
        .filter(([tag]) => tag.startsWith(prefix))
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([tag, t]) =>
          this.shape === "block"
            ? { ref: `refs/tags/${tag}` }
            : {
                ref: `refs/tags/${tag}`,
                object: {
                  sha: t.annotated ? toSha(`tag-object:${tag}`) : t.commit,
                  type: t.annotated ? "tag" : "commit",
                },
              },
        );
      return json(res, list);
    }
    const tagObject = /^git\/tags\/([0-9a-f]{40})$/.exec(rest);
    if (tagObject) {
      const found = [...repo.tags].find(
        ([tag, t]) => t.annotated && toSha(`tag-object:${tag}`) === tagObject[1],
      );
      return found
        ? json(res, { sha: tagObject[1], object: { sha: found[1].commit, type: "commit" } })
        : notFound(res);
    }
    const rel = /^releases\/tags\/(.+)$/.exec(rest);
    if (rel) {
      const release = repo.releases.get(rel[1] ?? "");
      // Drafts are not returned by tag (GitHub's releases API).
      if (!release || release.draft) return notFound(res);
      const published =
        this.shape === "block" ? release.publishedAt : (release.publishedAt ?? "2026-01-01T00:00:00Z");
      return json(res, {
        tag_name: release.tag,
        draft: false,
        prerelease: release.prerelease ?? false,
        ...(published === undefined ? {} : { created_at: published, published_at: published }),
        assets: release.assets.map((a, i) =>
          this.shape === "block"
            ? {
                name: a.name,
                browser_download_url: this.browserUrl(repoName, release.tag, a.name),
                ...(a.digest === false ? {} : { digest: `sha256:${release.digests[i]}` }),
                size: 0,
              }
            : {
                id: release.ids[i],
                name: a.name,
                url: `${this.#apiUrl}/repos/${repoName}/releases/assets/${release.ids[i]}`,
                browser_download_url: this.browserUrl(repoName, release.tag, a.name),
                digest: a.digest === false ? null : `sha256:${release.digests[i]}`,
                size: a.data.length,
              },
        ),
      });
    }
    const commit = /^commits\/(.+)$/.exec(rest);
    if (commit) {
      const ref = (commit[1] ?? "").replace(/^tags\//, "");
      const sha = repo.tags.get(ref)?.commit;
      if (!sha) {
        res.writeHead(422).end(JSON.stringify({ message: "No commit found" }));
        return;
      }
      if (req.headers.accept === "application/vnd.github.sha" && this.shape !== "block")
        return json(res, sha, "text/plain");
      return json(res, { sha, commit: { message: "fake" } });
    }
    const asset = /^releases\/assets\/(\d+)$/.exec(rest);
    if (asset) {
      const entry = this.#assets.get(Number(asset[1]));
      if (!entry || entry.repo !== repoName) return notFound(res);
      if (req.headers.accept !== "application/octet-stream")
        return json(res, { id: Number(asset[1]), name: entry.asset.name });
      return redirect(res, `${this.#storageUrl}/assets/${asset[1]}?signature=abc`);
    }
    notFound(res);
  }

  async #handleWeb(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", this.#webUrl);
    const path = decodeURIComponent(url.pathname);
    this.#record("web", req, path);
    if (this.latencyMs > 0) await new Promise((r) => setTimeout(r, this.latencyMs));
    const download = /^\/([^/]+\/[^/]+)\/releases\/download\/(.+)\/([^/]+)$/.exec(path);
    const [, repoName = "", tag = "", name = ""] = download ?? [];
    const repo = this.#repos.get(repoName);
    const release = repo?.releases.get(tag);
    const index = release?.assets.findIndex((a) => a.name === name) ?? -1;
    // A private asset's browser URL does not answer without a browser session (spec: "Authentication" 1).
    if (!repo || repo.private || !release || index < 0) return notFound(res);
    redirect(res, `${this.#storageUrl}/assets/${release.ids[index]}?signature=abc`);
  }

  #record(origin: string, req: IncomingMessage, path: string): void {
    const key = `${origin}:${path}`;
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
    if (req.headers.authorization !== undefined)
      this.tokenLeaks.push(`${req.method} ${origin}:${path} carried authorization`);
  }

  async #handleStorage(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", this.#storageUrl);
    this.#record("storage", req, url.pathname);
    if (this.latencyMs > 0) await new Promise((r) => setTimeout(r, this.latencyMs));
    const m = /^\/assets\/(\d+)$/.exec(url.pathname);
    const entry = m ? this.#assets.get(Number(m[1])) : undefined;
    if (!entry) {
      notFound(res);
      return;
    }
    res.writeHead(200, {
      "content-type": "application/octet-stream",
      "content-length": entry.asset.data.length,
    });
    if (this.stallDownloads > 0) {
      // Half the body, then silence: the connection stays open until the client's stall timeout drops it.
      this.stallDownloads--;
      res.write(entry.asset.data.subarray(0, Math.floor(entry.asset.data.length / 2)));
      return;
    }
    res.end(entry.asset.data);
  }
}

/** Lower-case hex sha256 of bytes. */
export function sha256(data: Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

function toSha(text: string): string {
  return /^[0-9a-f]{40}$/.test(text) ? text : createHash("sha1").update(text).digest("hex");
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    );
  });
}

/**
 * 32-bit FNV-1a of a string, in hex: enough to tell two answers apart, and far cheaper than a crypto hash per answer
 * (the lock benchmark runs this host in the measured process; node:crypto's Hash setup dominated its profile).
 */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16);
}

/** A 200 with an ETag as GitHub sends it (weak), or a 304 when the request's `If-None-Match` names it. */
function answer(
  req: IncomingMessage,
  res: ServerResponse,
  options: { body: string; type: string; onNotModified: () => void },
): void {
  const etag = `W/"${fnv1a(options.body)}-${options.body.length}"`;
  if (req.headers["if-none-match"] === etag) {
    options.onNotModified();
    res.writeHead(304, { etag }).end();
    return;
  }
  res.writeHead(200, { "content-type": options.type, etag });
  res.end(options.body);
}

function notFound(res: ServerResponse): void {
  res.writeHead(404, { "content-type": "application/json" });
  res.end(JSON.stringify({ message: "Not Found" }));
}

function redirect(res: ServerResponse, location: string): void {
  res.writeHead(302, { location });
  res.end();
}
