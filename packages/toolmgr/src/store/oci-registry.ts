import { join } from "node:path";
import { readBoundedText } from "../bounded-read.js";
import { HttpError } from "../errors.js";
import { blobUrl, type OciRepository } from "./mirrors.js";

type Env = Readonly<Record<string, string | undefined>>;

/** How `mirror push` authenticates: a bearer token given outright, or a user and password for basic/token flows. */
export type RegistryCredentials =
  | { readonly kind: "token"; readonly token: string }
  | { readonly kind: "basic"; readonly user: string; readonly password: string }
  | { readonly kind: "none" };

/**
 * `TOOLMGR_MIRROR_TOKEN` (a bearer token, sent as is), else the registry's entry under `auths` in the Docker config
 * (`$DOCKER_CONFIG/config.json`, else `~/.docker/config.json`): its base64 `auth` (`user:password`) or `username` and
 * `password`. Credential helpers (`credsStore`) are not run.
 */
export async function registryCredentials(
  registry: OciRepository,
  options: { env: Env; homedir: string },
): Promise<RegistryCredentials> {
  const token = options.env.TOOLMGR_MIRROR_TOKEN;
  if (token !== undefined && token !== "") return { kind: "token", token };
  const dir = options.env.DOCKER_CONFIG || join(options.homedir, ".docker");
  // Not a regular file (a FIFO would block) or too large: no credentials from it, as when it is missing.
  const text = await readBoundedText(join(dir, "config.json"), {
    kind: "state",
    refuse: (m) => new Error(m),
  }).catch(() => undefined);
  if (text === undefined) return { kind: "none" };
  let auths: Record<string, { auth?: unknown; username?: unknown; password?: unknown }> = {};
  try {
    const parsed = JSON.parse(text) as { auths?: unknown };
    if (parsed.auths !== null && typeof parsed.auths === "object") auths = parsed.auths as typeof auths;
  } catch {
    return { kind: "none" };
  }
  const entry =
    auths[registry.host] ?? auths[`${registry.origin}`] ?? auths[`https://${registry.host}`] ?? undefined;
  if (entry === undefined) return { kind: "none" };
  if (typeof entry.auth === "string" && entry.auth !== "") {
    const decoded = Buffer.from(entry.auth, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon > 0)
      return { kind: "basic", user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
  }
  if (typeof entry.username === "string" && typeof entry.password === "string")
    return { kind: "basic", user: entry.username, password: entry.password };
  return { kind: "none" };
}

/**
 * The `Authorization` value that answers a registry's 401 challenge: `Basic` with the credentials, or for `Bearer
 * realm=...,service=...,scope=...` a token from the realm (asked with the basic credentials when there are any:
 * the Docker registry token flow, "Token Authentication Specification").
 *
 * @throws {HttpError} naming `docker login` and `TOOLMGR_MIRROR_TOKEN` when the registry wants credentials
 */
export async function answerRegistryChallenge(
  challenge: string,
  options: { registry: OciRepository; fetch: typeof fetch; basic: string | undefined; scope: string },
): Promise<string> {
  const { registry, basic } = options;
  const needsCredentials = () =>
    new HttpError(
      `Cannot use ${registry.origin}/${registry.repository}: the registry wants credentials; log in with \`docker login ${registry.host}\` (~/.docker/config.json "auths") or set TOOLMGR_MIRROR_TOKEN`,
      { status: 401 },
    );
  const scheme = /^\s*(\w+)/.exec(challenge)?.[1]?.toLowerCase();
  if (scheme === "basic") {
    if (basic === undefined) throw needsCredentials();
    return basic;
  }
  if (scheme !== "bearer") throw needsCredentials();
  const params = new Map<string, string>();
  for (const m of challenge.matchAll(/(\w+)="([^"]*)"/g)) params.set((m[1] ?? "").toLowerCase(), m[2] ?? "");
  const realm = params.get("realm");
  if (realm === undefined) throw needsCredentials();
  const url = new URL(realm);
  if (params.has("service")) url.searchParams.set("service", params.get("service") ?? "");
  url.searchParams.set("scope", params.get("scope") ?? options.scope);
  const answer = await options.fetch(url, basic === undefined ? {} : { headers: { authorization: basic } });
  const body = (await answer.json().catch(() => ({}))) as { token?: unknown; access_token?: unknown };
  const token = typeof body.token === "string" ? body.token : body.access_token;
  if (!answer.ok || typeof token !== "string") {
    throw new HttpError(
      `Cannot use ${registry.origin}/${registry.repository}: the registry's token service ${url.origin}${url.pathname} refused (HTTP ${answer.status}); log in with \`docker login ${registry.host}\` or set TOOLMGR_MIRROR_TOKEN`,
    );
  }
  return `Bearer ${token}`;
}

/** `Basic <base64>` for basic credentials, else undefined. */
export function basicAuthorization(credentials: RegistryCredentials): string | undefined {
  return credentials.kind === "basic"
    ? `Basic ${Buffer.from(`${credentials.user}:${credentials.password}`).toString("base64")}`
    : undefined;
}

/**
 * The `Authorization` a pull from `registry` needs, or undefined when it answers anonymously: `GET /v2/` and, on a
 * 401, the answer to its challenge with the pull scope (OCI distribution spec, "Determining support").
 */
export async function pullAuthorization(
  registry: OciRepository,
  options: { fetch: typeof fetch; credentials: RegistryCredentials },
): Promise<string | undefined> {
  if (options.credentials.kind === "token") return `Bearer ${options.credentials.token}`;
  const ping = await options.fetch(`${registry.origin}/v2/`, { redirect: "manual" }).catch(() => undefined);
  await ping?.body?.cancel();
  if (ping?.status !== 401) return undefined;
  return answerRegistryChallenge(ping.headers.get("www-authenticate") ?? "", {
    registry,
    fetch: options.fetch,
    basic: basicAuthorization(options.credentials),
    scope: `repository:${registry.repository}:pull`,
  });
}

/**
 * `pullAuthorization` per registry repository, asked once per process (a sync may pull many blobs from one mirror).
 */
export function createPullAuthorizer(options: {
  fetch: typeof fetch;
  env: Env;
  homedir: string;
}): (registry: OciRepository) => Promise<string | undefined> {
  const known = new Map<string, Promise<string | undefined>>();
  return (registry) => {
    const key = `${registry.origin}/${registry.repository}`;
    let auth = known.get(key);
    if (auth === undefined) {
      auth = registryCredentials(registry, options).then((credentials) =>
        pullAuthorization(registry, { fetch: options.fetch, credentials }),
      );
      known.set(key, auth);
    }
    return auth;
  };
}

/** A session with one registry repository: remembers the token a challenge earned. */
export interface OciPusher {
  /** Uploads `data` as the blob `sha256:<digest>` unless the registry has it; returns whether it uploaded. */
  pushBlob(sha256: string, data: Buffer): Promise<boolean>;
  /** Tags an OCI image manifest listing `layers` (and `config`), so the registry keeps the blobs it references. */
  pushManifest(
    tag: string,
    manifest: { config: OciDescriptor; layers: readonly OciDescriptor[] },
  ): Promise<void>;
}

/** A content descriptor (OCI image spec, "Descriptors"). */
export interface OciDescriptor {
  readonly mediaType: string;
  readonly digest: string;
  readonly size: number;
}

/**
 * Creates a pusher speaking the OCI distribution upload API: `HEAD` the blob (skip when present), `POST
 * /v2/<repo>/blobs/uploads/` for a session, then one monolithic `PUT <location>?digest=sha256:<hex>` ("Pushing a blob
 * monolithically", OCI distribution spec). A 401 is answered per its `WWW-Authenticate` challenge: `Bearer
 * realm,service,scope` (a token from the realm, with basic credentials when there are any: the Docker registry token
 * flow) or `Basic`.
 */
export function createOciPusher(
  registry: OciRepository,
  options: { fetch: typeof fetch; credentials: RegistryCredentials },
): OciPusher {
  let authorization: string | undefined =
    options.credentials.kind === "token" ? `Bearer ${options.credentials.token}` : undefined;
  const basic = basicAuthorization(options.credentials);

  async function send(
    url: string,
    init: { method: string; headers?: Record<string, string>; body?: Buffer },
  ) {
    for (let attempt = 0; ; attempt++) {
      const headers: Record<string, string> = { ...init.headers };
      if (authorization !== undefined) headers.authorization = authorization;
      let response: Response;
      try {
        response = await options.fetch(url, {
          method: init.method,
          headers,
          ...(init.body === undefined ? {} : { body: init.body }),
          redirect: "manual",
        });
      } catch (cause) {
        throw new HttpError(
          `Cannot reach the registry ${registry.origin}: ${(cause as Error & { cause?: Error }).cause?.message ?? (cause as Error).message}`,
          { cause },
        );
      }
      if (response.status !== 401 || attempt > 0) return response;
      await response.body?.cancel();
      authorization = await answerChallenge(response.headers.get("www-authenticate") ?? "");
    }
  }

  const answerChallenge = (challenge: string) =>
    answerRegistryChallenge(challenge, {
      registry,
      fetch: options.fetch,
      basic,
      scope: `repository:${registry.repository}:pull,push`,
    });

  function refused(step: string, response: Response): HttpError {
    return new HttpError(
      `Cannot push to ${registry.origin}/${registry.repository}: ${step} answered HTTP ${response.status}${response.status === 401 || response.status === 403 ? "; check the credentials (docker login, TOOLMGR_MIRROR_TOKEN) and that they may push to this repository" : ""}`,
      { status: response.status },
    );
  }

  return {
    async pushBlob(sha256, data) {
      const blob = blobUrl(registry, sha256);
      const head = await send(blob, { method: "HEAD" });
      if (head.ok) return false;
      const start = await send(`${registry.origin}/v2/${registry.repository}/blobs/uploads/`, {
        method: "POST",
      });
      await start.body?.cancel();
      const location = start.headers.get("location");
      if (start.status !== 202 || location === null) throw refused("starting an upload", start);
      const put = new URL(location, registry.origin);
      put.searchParams.set("digest", `sha256:${sha256}`);
      const done = await send(put.href, {
        method: "PUT",
        headers: { "content-type": "application/octet-stream", "content-length": String(data.length) },
        body: data,
      });
      await done.body?.cancel();
      if (done.status !== 201) throw refused(`uploading sha256:${sha256}`, done);
      return true;
    },
    async pushManifest(tag, manifest) {
      // An image manifest with an artifact config type, as ORAS pushes artifacts: registries keep blobs a tagged
      // manifest references and may garbage-collect the others (distribution's `registry garbage-collect`).
      const body = Buffer.from(
        JSON.stringify({
          schemaVersion: 2,
          mediaType: "application/vnd.oci.image.manifest.v1+json",
          config: manifest.config,
          layers: manifest.layers,
        }),
      );
      const put = await send(`${registry.origin}/v2/${registry.repository}/manifests/${tag}`, {
        method: "PUT",
        headers: { "content-type": "application/vnd.oci.image.manifest.v1+json" },
        body,
      });
      await put.body?.cancel();
      if (put.status !== 201) throw refused(`tagging ${tag}`, put);
    },
  };
}
