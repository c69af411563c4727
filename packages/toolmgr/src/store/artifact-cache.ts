import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  DigestMismatchError,
  HttpError,
  isStoreFull,
  MissingTokenError,
  StoreError,
  storeFullError,
  ToolmgrError,
} from "../errors.js";
import { type HttpClient, redact } from "../http/client.js";
import { commitFile, tempPath } from "../replace-file.js";
import { freeBytes } from "./free-space.js";
import { cachedArtifactPath, type StoreLayout } from "./layout.js";
import { DOWNLOAD_PREFIX, downloadDir, sweepDownloads } from "./leftovers.js";
import { type MirrorConfig, mirrorUrl } from "./mirrors.js";

/** What to fetch: the public URL, or for a private repository the API asset URL downloaded with the token. */
export interface ArtifactRef {
  /** For messages: the tool the artifact belongs to. */
  readonly tool: string;
  readonly url: string;
  readonly apiUrl?: string | undefined;
  /** The digest the lock records; absent at lock time for trust on first use. */
  readonly sha256?: string | undefined;
  /** For messages: the pinned version (a channel build's names its commit). */
  readonly version?: string | undefined;
}

/** Progress of one download, for the TTY display. */
export interface DownloadProgress {
  readonly received: number;
  readonly total: number | undefined;
}

/** What `fetchArtifact` needs. */
export interface FetchArtifactOptions {
  readonly layout: StoreLayout;
  readonly client: HttpClient;
  /** Whether `CODEHOST_TOKEN` is set (the client holds it); a private artifact needs it. */
  readonly hasToken: boolean;
  readonly onProgress?: (progress: DownloadProgress) => void;
  /** Mirrors tried, in order, before the locked URL; `offline` skips the locked URL. */
  readonly mirrors?: MirrorConfig;
  /** A line for stderr: a mirror that failed or served the wrong bytes, before the next source is tried. */
  readonly onWarning?: (text: string) => void;
}

/** Where a verified artifact is, and its digest. */
export interface CachedArtifact {
  readonly path: string;
  readonly sha256: string;
  /** Whether it came from the cache rather than the network. */
  readonly cacheHit: boolean;
}

/**
 * Returns the artifact from `cache/sha256/<digest>`, downloading it when absent. A cache hit is re-hashed first; a
 * truncated or tampered file is discarded and downloaded again. Downloads stream into a temporary file inside the
 * store while hashing; a digest that differs from `sha256` is rejected, the temporary file removed
 * (spec: "Checksum rules" 3). Without an expected digest (trust on first use) the computed one names the file.
 *
 * @throws {DigestMismatchError} naming tool, URL, expected and actual digest
 * @throws {MissingTokenError} for a private artifact without `CODEHOST_TOKEN`
 */
export async function fetchArtifact(
  ref: ArtifactRef,
  options: FetchArtifactOptions,
): Promise<CachedArtifact> {
  const { layout } = options;
  await ensureDir(layout);
  if (ref.sha256 !== undefined) {
    const path = cachedArtifactPath(layout, ref.sha256);
    const actual = await hashFile(path).catch(() => undefined);
    if (actual === ref.sha256) return { path, sha256: actual, cacheHit: true };
    if (actual !== undefined) await rm(path, { force: true });
  }
  const sources: string[] = [];
  const mirrors = options.mirrors;
  if (ref.sha256 !== undefined && mirrors !== undefined) {
    // Mirrors first, in list order: the lock's URL and digest stay as they are, and the digest is checked whatever
    // serves the bytes, so a mirror can be anything from an internal file server to an OCI registry.
    for (const mirror of mirrors.mirrors) {
      const url = mirrorUrl(mirror, { url: ref.url, sha256: ref.sha256 });
      if (url === undefined) continue;
      try {
        const authorization =
          mirror.kind !== "oci"
            ? undefined
            : mirrors.token !== undefined
              ? `Bearer ${mirrors.token}`
              : await mirrors.authorize?.(mirror.registry);
        return await downloadOnce({ ...ref, url, apiUrl: undefined }, options, authorization);
      } catch (error) {
        if (!(error instanceof Error) || error instanceof StoreError) throw error;
        const why =
          error instanceof DigestMismatchError
            ? `it served other bytes (expected sha256 ${ref.sha256})`
            : error instanceof HttpError && error.status === 404
              ? "it does not have it"
              : error.message;
        sources.push(`${mirror.text} (${why})`);
        options.onWarning?.(
          `toolmgr: warning: mirror ${mirror.text} refused for "${ref.tool}": ${why}; trying the next source`,
        );
      }
    }
  }
  if (mirrors?.offline === true) {
    const tried =
      sources.length > 0 ? `; tried ${sources.join(", ")}` : "; no mirror is configured (TOOLMGR_MIRRORS)";
    throw new HttpError(
      `Cannot download "${ref.tool}"${ref.version ? ` ${ref.version}` : ""} offline (TOOLMGR_OFFLINE=1): it is not in the store's cache and no mirror served it${tried}`,
    );
  }
  if (ref.apiUrl !== undefined && !options.hasToken) {
    throw new MissingTokenError(
      `Cannot download "${ref.tool}" from a private repository: set CODEHOST_TOKEN to a token that can read it`,
    );
  }
  // A transfer that stalls or breaks off half-way is started again from the beginning, as often as a 5xx would be
  // retried; the last failure names the URL and how many times it was tried.
  for (let attempt = 0; ; attempt++) {
    try {
      return await downloadOnce(ref, options);
    } catch (error) {
      if (
        error instanceof HttpError &&
        (error.status === 404 || error.status === 410) &&
        ref.sha256 !== undefined
      )
        throw vanished(ref, error.status);
      // A refusal of the client (plain http along a redirect, too many redirects) says nothing of which tool it was
      // downloading: with many tools, the reader needs the name (nao1215/block sync.atago.yaml names it too).
      if (
        error instanceof HttpError &&
        error.status === undefined &&
        !error.message.includes(`"${ref.tool}"`)
      )
        throw new HttpError(
          `Cannot download "${ref.tool}"${ref.version ? ` ${ref.version}` : ""}: ${error.message}`,
          {
            cause: error,
          },
        );
      if (error instanceof ToolmgrError) throw error;
      if (attempt >= options.client.retries) {
        throw new HttpError(
          `Cannot download "${ref.tool}" from ${redact(new URL(ref.apiUrl ?? ref.url))}: ${(error as Error).message} (tried ${attempt + 1} times); check the network and try again`,
          { cause: error },
        );
      }
      await options.client.backoff(attempt);
    }
  }
}

/**
 * A locked artifact the host no longer serves: foundry and others delete old `nightly-<commit>` releases, so a lock
 * that pinned one cannot sync anywhere that does not have it already.
 */
function vanished(ref: ArtifactRef, status: number): HttpError {
  const commit = /-([0-9a-f]{7,64})$/.exec(ref.version ?? "")?.[1];
  const what =
    commit !== undefined ? `the build of commit ${commit}` : `version ${ref.version ?? "(unknown)"}`;
  return new HttpError(
    `Cannot download "${ref.tool}" ${ref.version ?? ""}: ${what} is no longer there, it was deleted upstream (the locked URL answers ${status} Not Found/Gone: ${redact(new URL(ref.url))}). Pin a release in toolmgr.toml and run toolmgr lock, or fetch it from a mirror that kept a copy (TOOLMGR_MIRRORS; \`toolmgr mirror push\` makes one)`,
    { status },
  );
}

async function downloadOnce(
  ref: ArtifactRef,
  options: FetchArtifactOptions,
  authorization?: string,
): Promise<CachedArtifact> {
  const { layout } = options;
  // A private artifact comes from its API URL (the client adds the token there, and drops it along the redirect).
  const response = await options.client.get(ref.apiUrl ?? ref.url, {
    accept: "application/octet-stream",
    ...(authorization === undefined ? {} : { authorization }),
  });
  const temp = tempPath(downloadDir(layout), DOWNLOAD_PREFIX);
  const hash = createHash("sha256");
  const total = Number(response.headers.get("content-length")) || undefined;
  let received = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      received += chunk.length;
      options.onProgress?.({ received, total });
      callback(null, chunk);
    },
  });
  let renamed = false;
  try {
    if (response.body === null)
      throw new HttpError(`Cannot download "${ref.tool}" from ${ref.url}: empty answer`);
    try {
      if (total !== undefined && total <= SMALL_BODY) {
        // A small artifact is read into memory and written with one call: the stream plumbing (a write stream's
        // open/write/close round trips through the thread pool, a Transform) cost more than the bytes in a TOFU lock of
        // hundreds of small artifacts (lock-bench.mjs, "tofu").
        const chunks: Buffer[] = [];
        for await (const chunk of response.body) {
          const data = chunk as Buffer;
          hash.update(data);
          chunks.push(data);
          received += data.length;
          options.onProgress?.({ received, total });
        }
        await writeFile(temp, Buffer.concat(chunks));
      } else {
        await pipeline(response.body, meter, createWriteStream(temp));
      }
    } catch (error) {
      // Node's client reports a body that ends before its content-length as a bare "aborted" reset; the check below
      // says what happened instead.
      const cutShort = total !== undefined && received < total;
      if (!cutShort || (error as NodeJS.ErrnoException).code !== "ECONNRESET") throw error;
    }
    if (total !== undefined && received !== total) {
      // The server closed the connection early (quietly, or with that reset): a truncated body, retried like a reset.
      throw new Error(`the transfer ended after ${received} of ${total} bytes`);
    }
    const actual = hash.digest("hex");
    if (ref.sha256 !== undefined && actual !== ref.sha256) {
      throw new DigestMismatchError(
        `Cannot verify "${ref.tool}" from ${ref.url}: expected sha256 ${ref.sha256}, got ${actual}; the artifact changed upstream or was corrupted in transit; nothing was installed`,
      );
    }
    const path = cachedArtifactPath(layout, actual);
    await commitFile(temp, path);
    renamed = true;
    return { path, sha256: actual, cacheHit: false };
  } catch (error) {
    // A full or read-only store is no network failure: named, never retried (fetchArtifact rethrows a StoreError).
    if (!isStoreFull(error)) throw error;
    const dir = downloadDir(layout);
    throw storeFullError(error, {
      doing: `download "${ref.tool}"${ref.version ? ` ${ref.version}` : ""} into the store`,
      dir,
      needed:
        total === undefined
          ? `the server did not say its size; ${received} bytes had arrived`
          : `it needs ${total} bytes`,
      free: await freeBytes(dir),
    });
  } finally {
    // Only a failure leaves the temporary file behind (after a rename, an `rm` would be a wasted lstat and error).
    if (!renamed) await rm(temp, { force: true });
  }
}

/** Bodies up to this size (with a known length) are buffered rather than streamed to disk. */
const SMALL_BODY = 1 << 20;

const madeDirs = new Map<string, Promise<unknown>>();

/**
 * `mkdir -p` once per directory and process (a TOFU `lock` fetches hundreds of artifacts into one directory), and
 * the first time, removal of the downloads a killed `lock` or `sync` left behind (leftovers.ts).
 */
function ensureDir(layout: StoreLayout): Promise<unknown> {
  const dir = layout.cacheDir;
  let made = madeDirs.get(dir);
  if (made === undefined) {
    made = mkdir(dir, { recursive: true }).then(() => sweepDownloads(layout, Date.now()));
    made.catch(() => madeDirs.delete(dir));
    madeDirs.set(dir, made);
  }
  return made;
}

/** Lower-case hex sha256 of a file. */
export async function hashFile(path: string): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(path), hash);
  return hash.digest("hex");
}
