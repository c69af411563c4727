import { join } from "node:path";
import { parse } from "smol-toml";
import { readBoundedText } from "../bounded-read.js";
import type { Runtime } from "../deps.js";
import { ConfigError, UsageError } from "../errors.js";
import { hideCredentials } from "../hide-credentials.js";
import { isLoopbackHost } from "../loopback-host.js";
import { describeTomlError } from "../toml-error.js";

type Env = Readonly<Record<string, string | undefined>>;

/** An OCI registry repository: where `mirror push` uploads and where blobs are fetched by digest. */
export interface OciRepository {
  /** `http(s)://host[:port]` (plain http only for loopback hosts). */
  readonly origin: string;
  readonly host: string;
  /** The repository name, e.g. `team/toolmgr`. */
  readonly repository: string;
}

/** One mirror entry: a URL-prefix rewrite, or an OCI registry serving artifacts as blobs by digest. */
export type Mirror =
  | { readonly kind: "prefix"; readonly text: string; readonly prefix: string; readonly replacement: string }
  | { readonly kind: "oci"; readonly text: string; readonly registry: OciRepository };

/** The mirrors the user configured and whether the locked URLs are off limits. */
export interface MirrorConfig {
  readonly mirrors: readonly Mirror[];
  /** `TOOLMGR_OFFLINE=1`: never contact a locked URL. */
  readonly offline: boolean;
  /** `TOOLMGR_MIRROR_TOKEN`: sent as a bearer token to OCI mirrors (their origin only). */
  readonly token: string | undefined;
  /** The `Authorization` a pull from an OCI mirror needs (its challenge answered), when the caller can tell. */
  readonly authorize?: (registry: OciRepository) => Promise<string | undefined>;
}

/** Repository names as the OCI distribution spec allows them (`[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*(\/...)*`). */
const REPOSITORY = /^[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*)*$/;

/**
 * Parses `oci://host[:port]/repository`.
 *
 * @throws {UsageError} saying what is wrong, prefixed with `where`
 */
export function parseOciReference(text: string, where: string): OciRepository {
  const m = /^oci:\/\/([^/]+)\/(.+)$/.exec(text);
  let url: URL | undefined;
  try {
    url = m ? new URL(`http://${m[1]}`) : undefined;
  } catch {
    url = undefined;
  }
  const repository = m?.[2]?.replace(/\/+$/, "") ?? "";
  if (url === undefined || url.username !== "" || !REPOSITORY.test(repository)) {
    throw new UsageError(
      `${where}: "${hideCredentials(text)}" is not an OCI repository; write oci://host[:port]/repository (lower-case repository name)`,
    );
  }
  const scheme = isLoopbackHost(url.hostname) ? "http" : "https";
  return { origin: `${scheme}://${url.host}`, host: url.host, repository };
}

/**
 * Parses one mirror entry: `oci://host[:port]/repository`, or `PREFIX=REPLACEMENT` with two http(s) URLs.
 *
 * @throws {UsageError} naming `where` and the entry
 */
export function parseMirror(text: string, where: string): Mirror {
  const entry = text.trim();
  if (entry.startsWith("oci://"))
    return { kind: "oci", text: entry, registry: parseOciReference(entry, where) };
  const eq = entry.indexOf("=");
  const prefix = entry.slice(0, eq);
  const replacement = entry.slice(eq + 1);
  if (eq < 0 || !isHttpUrl(prefix) || !isHttpUrl(replacement)) {
    throw new UsageError(
      `${where}: "${hideCredentials(entry)}" is not a mirror; write PREFIX=REPLACEMENT (two http(s) URLs, e.g. https://github.com/=https://mirror.example/github/) or oci://host[:port]/repository`,
    );
  }
  // `text` names the mirror in warnings and errors: credentials in the replacement are sent, never printed.
  return { kind: "prefix", text: hideCredentials(entry), prefix, replacement };
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "https:" || url.protocol === "http:";
  } catch {
    return false;
  }
}

/**
 * The mirrors from `TOOLMGR_MIRRORS` (comma-separated), else from `mirrors = [...]` in
 * `$XDG_CONFIG_HOME/toolmgr/config.toml` (`~/.config/toolmgr/config.toml`); the variable wins when both are set.
 *
 * @throws {UsageError} for a bad entry in the variable
 * @throws {ConfigError} for a config file that does not parse or has a bad entry
 */
export async function mirrorConfig(env: Env, runtime: Runtime): Promise<MirrorConfig> {
  const offline = env.TOOLMGR_OFFLINE === "1" || env.TOOLMGR_OFFLINE === "true";
  const token = env.TOOLMGR_MIRROR_TOKEN || undefined;
  const list = env.TOOLMGR_MIRRORS;
  if (list !== undefined && list.trim() !== "") {
    const mirrors = list
      .split(",")
      .filter((e) => e.trim() !== "")
      .map((e) => parseMirror(e, "TOOLMGR_MIRRORS"));
    return { mirrors, offline, token };
  }
  const path = join(env.XDG_CONFIG_HOME || join(runtime.homedir, ".config"), "toolmgr", "config.toml");
  const text = await readBoundedText(path, { kind: "state", refuse: (m) => new ConfigError(m) }).catch(
    (error: unknown) => {
      if (error instanceof ConfigError) throw error;
      return undefined;
    },
  );
  if (text === undefined) return { mirrors: [], offline, token };
  let data: Record<string, unknown>;
  try {
    data = parse(text) as Record<string, unknown>;
  } catch (cause) {
    throw new ConfigError(`Cannot parse ${describeTomlError(cause, path)}`, { cause });
  }
  for (const key of Object.keys(data)) {
    if (key !== "mirrors")
      throw new ConfigError(`Cannot parse ${path}: unknown key "${key}" (known: mirrors)`);
  }
  const raw = data.mirrors ?? [];
  if (!Array.isArray(raw) || raw.some((e) => typeof e !== "string")) {
    throw new ConfigError(`Cannot parse ${path}: "mirrors" must be a list of strings`);
  }
  try {
    return { mirrors: (raw as string[]).map((e) => parseMirror(e, `${path}: mirrors`)), offline, token };
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}

/** Where `mirror` would serve the artifact at `url` with digest `sha256`, or undefined when it does not apply. */
export function mirrorUrl(mirror: Mirror, artifact: { url: string; sha256: string }): string | undefined {
  if (mirror.kind === "oci") return blobUrl(mirror.registry, artifact.sha256);
  return artifact.url.startsWith(mirror.prefix)
    ? mirror.replacement + artifact.url.slice(mirror.prefix.length)
    : undefined;
}

/** `GET`/`HEAD` address of a blob: `/v2/<repository>/blobs/sha256:<hex>` (OCI distribution spec, "Pulling blobs"). */
export function blobUrl(registry: OciRepository, sha256: string): string {
  return `${registry.origin}/v2/${registry.repository}/blobs/sha256:${sha256}`;
}
