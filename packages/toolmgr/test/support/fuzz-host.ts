import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { type ScriptedServer, startScriptedServer } from "./scripted-server.js";

/** The platforms every fuzzed release carries an asset for, as `{os}` and `{arch}` spell them. */
const PLATFORMS = [
  ["linux", "amd64"],
  ["linux", "arm64"],
  ["darwin", "amd64"],
  ["darwin", "arm64"],
  ["windows", "amd64"],
  ["windows", "arm64"],
] as const;

/** File name endings of the assets a fuzzed release carries (each archive kind, and a raw executable). */
export const ASSET_ENDINGS = [".tar.gz", ".tgz", ".zip", ".tar.bz2", ".tar.xz", ".tar", ""] as const;

/** What an endpoint answers instead of the good answer. */
export type Fault =
  | { readonly kind: "status"; readonly status: number; readonly times: number }
  | { readonly kind: "rate-limit" }
  | { readonly kind: "redirect"; readonly to: "other" | "plain-http" | "self" | "bad-location" }
  | { readonly kind: "body"; readonly body: string }
  | { readonly kind: "mutate"; readonly mutate: (good: unknown) => unknown };

/** One case's code host: its repository `acme/fz`, its releases, and what goes wrong where. */
export interface HostPlan {
  /** Tag names of `acme/fz` (the channel `nightly` moves to `nightlyCommit`, whose build is `nightly-<commit>`). */
  readonly tags: readonly string[];
  readonly nightlyCommit: string;
  readonly private: boolean;
  /** The bytes of every asset. */
  readonly artifact: Buffer;
  /** What the host records as each asset's digest. */
  readonly digest: "host" | "none" | "wrong" | "upper" | "garbage";
  /** Where `browser_download_url` points (`other` is another origin; `plain-http` an http URL off loopback). */
  readonly downloadAt: "api" | "other" | "plain-http" | "relative";
  /** `published_at` of every release (undefined: the field is left out). */
  readonly publishedAt: unknown;
  /** Faults by endpoint: `repo`, `tags`, `release`, `commit`, `download`. */
  readonly faults: ReadonlyMap<string, Fault>;
}

/** The API origin and a second origin (downloads, redirects) with what they saw. */
export interface FuzzHost {
  readonly apiUrl: string;
  readonly otherUrl: string;
  /** `authorization` headers another origin than the API received, with the path. */
  readonly leaks: string[];
  plan: HostPlan;
  close(): Promise<void>;
}

/** Starts the two origins of the fuzzed code host on 127.0.0.1 (port 0); `plan` is swapped per case. */
export async function startFuzzHost(plan: HostPlan): Promise<FuzzHost> {
  const leaks: string[] = [];
  let api: ScriptedServer | undefined;
  let other: ScriptedServer | undefined;
  const host: FuzzHost = {
    get apiUrl() {
      return api?.url ?? "";
    },
    get otherUrl() {
      return other?.url ?? "";
    },
    leaks,
    plan,
    async close() {
      await Promise.all([api?.close(), other?.close()]);
    },
  };
  api = await startScriptedServer((path, req, res) => void answerApi(host, { path, req, res }));
  other = await startScriptedServer((path, req, res) => {
    if (req.headers.authorization !== undefined) leaks.push(`${path}: ${req.headers.authorization}`);
    void answerApi(host, { path, req, res, origin: "other" });
  });
  return host;
}

function sha256(data: Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

function shaOf(text: string): string {
  return createHash("sha1").update(text).digest("hex");
}

/** Applies the endpoint's fault, if any; true when it answered. */
function faulted(
  host: FuzzHost,
  endpoint: string,
  r: { path: string; res: ServerResponse; origin?: "other" },
): boolean {
  const fault = host.plan.faults.get(endpoint);
  if (fault === undefined || fault.kind === "mutate" || r.origin === "other") return false;
  const { res } = r;
  switch (fault.kind) {
    case "status": {
      const seen = (counts.get(fault) ?? 0) + 1;
      counts.set(fault, seen);
      if (seen > fault.times) return false;
      res.writeHead(fault.status, { "content-type": "application/json" }).end('{"message":"fuzz"}');
      return true;
    }
    case "rate-limit":
      res
        .writeHead(403, {
          "content-type": "application/json",
          "x-ratelimit-remaining": "0",
          // A fixed time, far after every clock the cases run with: the message names it, the same every run.
          "x-ratelimit-reset": String(Date.UTC(2027, 0, 1) / 1000),
        })
        .end('{"message":"API rate limit exceeded"}');
      return true;
    case "redirect": {
      const location =
        fault.to === "other"
          ? `${host.otherUrl}${r.path}`
          : fault.to === "plain-http"
            ? `http://example.invalid${r.path}`
            : fault.to === "self"
              ? r.path
              : "http://[::1";
      res.writeHead(302, { location }).end();
      return true;
    }
    case "body":
      res.writeHead(200, { "content-type": "application/json" }).end(fault.body);
      return true;
  }
}

/** How often each `status` fault has answered (a fault with `times` answers that many requests, then passes). */
const counts = new WeakMap<Fault, number>();

function send(res: ServerResponse, body: unknown, type = "application/json"): void {
  res.writeHead(200, { "content-type": type }).end(typeof body === "string" ? body : JSON.stringify(body));
}

function notFound(res: ServerResponse): void {
  res.writeHead(404, { "content-type": "application/json" }).end('{"message":"Not Found"}');
}

// Async only so that each branch can end in `return send(...)`, as fake-code-host.ts's handler does.
async function answerApi(
  host: FuzzHost,
  r: { path: string; req: IncomingMessage; res: ServerResponse; origin?: "other" },
): Promise<void> {
  const { plan } = host;
  const { path, req, res } = r;
  const dl = /^\/dl\/(.+)$/.exec(path);
  if (dl) {
    if (faulted(host, "download", r)) return;
    res.writeHead(200, {
      "content-type": "application/octet-stream",
      "content-length": plan.artifact.length,
    });
    res.end(plan.artifact);
    return;
  }
  const m = /^\/repos\/acme\/fz(?:\/(.*))?$/.exec(path);
  if (!m) return notFound(res);
  const rest = m[1] ?? "";
  const endpoint = rest === "" ? "repo" : rest.startsWith("git/matching-refs/") ? "tags" : rest.split("/")[0];
  const name = endpoint === "releases" && rest.startsWith("releases/tags/") ? "release" : (endpoint ?? "");
  if (faulted(host, name === "commits" ? "commit" : name, r)) return;
  const mutate = (key: string, good: unknown): unknown => {
    const fault = plan.faults.get(key);
    return fault?.kind === "mutate" ? fault.mutate(good) : good;
  };
  const allTags = [...plan.tags, "nightly", `nightly-${plan.nightlyCommit}`];
  if (rest === "") return send(res, mutate("repo", { full_name: "acme/fz", private: plan.private }));
  const refs = /^git\/matching-refs\/tags\/(.*)$/.exec(rest);
  if (refs) {
    const list = allTags
      .filter((t) => t.startsWith(refs[1] ?? ""))
      .map((t) => ({ ref: `refs/tags/${t}`, object: { sha: tagCommit(plan, t), type: "commit" } }));
    return send(res, mutate("tags", list));
  }
  const rel = /^releases\/tags\/(.+)$/.exec(rest);
  if (rel) {
    const tag = rel[1] ?? "";
    if (!allTags.includes(tag) || tag === "nightly") return notFound(res);
    return send(res, mutate("release", goodRelease(host, tag)));
  }
  const commit = /^commits\/(?:tags\/)?(.+)$/.exec(rest);
  if (commit) {
    const ref = commit[1] ?? "";
    if (!allTags.includes(ref)) {
      res.writeHead(422, { "content-type": "application/json" }).end('{"message":"No commit found"}');
      return;
    }
    const sha = tagCommit(plan, ref);
    if (plan.faults.get("commit")?.kind === "mutate") return send(res, mutate("commit", { sha }));
    if (req.headers.accept === "application/vnd.github.sha") return send(res, sha, "text/plain");
    return send(res, { sha });
  }
  const asset = /^releases\/assets\/(\d+)$/.exec(rest);
  if (asset) {
    if (req.headers.accept !== "application/octet-stream") return send(res, { id: Number(asset[1]) });
    res.writeHead(302, { location: `${host.otherUrl}/dl/asset-${asset[1]}` }).end();
    return;
  }
  notFound(res);
}

function tagCommit(plan: HostPlan, tag: string): string {
  return tag === "nightly" || tag === `nightly-${plan.nightlyCommit}` ? plan.nightlyCommit : shaOf(tag);
}

function goodRelease(host: FuzzHost, tag: string): Record<string, unknown> {
  const { plan } = host;
  const version = tag.startsWith("nightly") ? "nightly" : tag.replace(/^v/, "");
  const hex = sha256(plan.artifact);
  const digest = {
    host: `sha256:${hex}`,
    none: null,
    wrong: `sha256:${"0".repeat(64)}`,
    upper: `sha256:${hex.toUpperCase()}`,
    garbage: `sha256:${hex.slice(0, 40)}`,
  }[plan.digest];
  const assets: Record<string, unknown>[] = [];
  let id = 1;
  for (const [os, arch] of PLATFORMS) {
    for (const ending of ASSET_ENDINGS) {
      const name = `fz-${version}-${os}-${arch}${ending}`;
      const where = `/dl/${encodeURIComponent(tag)}/${encodeURIComponent(name)}`;
      const browser = {
        api: `${host.apiUrl}${where}`,
        other: `${host.otherUrl}${where}`,
        "plain-http": `http://example.invalid${where}`,
        relative: where,
      }[plan.downloadAt];
      assets.push({
        id,
        name,
        url: `${host.apiUrl}/repos/acme/fz/releases/assets/${id++}`,
        browser_download_url: browser,
        digest,
        size: plan.artifact.length,
      });
    }
  }
  return {
    tag_name: tag,
    draft: false,
    prerelease: /-/.test(tag) && !tag.startsWith("nightly"),
    ...(plan.publishedAt === undefined ? {} : { published_at: plan.publishedAt }),
    assets,
  };
}
