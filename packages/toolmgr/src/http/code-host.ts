import { HttpError } from "../errors.js";
import type { HttpClient, TextAnswer } from "./client.js";

/** A tag from `git/matching-refs`. For an annotated tag `sha` is the tag object's, not the commit's. */
export interface TagRef {
  readonly name: string;
  readonly sha: string;
  readonly type: string;
}

/** A release asset as toolmgr uses it. */
export interface ReleaseAsset {
  readonly name: string;
  /**
   * The API asset URL (answers with the bytes for `Accept: application/octet-stream`). Needed only for a private
   * repository's artifact; some GitHub-compatible hosts and caching proxies do not send it.
   */
  readonly apiUrl?: string;
  /** The public download URL. */
  readonly browserUrl: string;
  /** Lower-case hex sha256 the host recorded, when it did (assets uploaded since 2025). */
  readonly sha256?: string;
}

/** A release of a tag. */
export interface Release {
  readonly tag: string;
  readonly draft: boolean;
  readonly prerelease: boolean;
  /**
   * When the release was published (`published_at`), the date a minimum release age counts from; absent when the
   * host sends none (a draft; hosts shaped like nao1215/block's fake).
   */
  readonly publishedAt?: Date;
  readonly assets: readonly ReleaseAsset[];
}

/** The three code-hosting endpoints of the spec, plus the repository (privacy) and tag-object lookups. */
export interface CodeHost {
  /** Tags whose names start with `prefix` (textual, unpaginated: spec "Endpoints"). */
  matchingTags(repo: string, prefix: string): Promise<TagRef[]>;
  /** The release of `tag`, or undefined when the tag has none (a draft is not returned by the host either). */
  release(repo: string, tag: string): Promise<Release | undefined>;
  /** The commit a ref (a moving channel tag, or a version tag) points at now, or undefined when there is none. */
  commit(repo: string, ref: string): Promise<string | undefined>;
  /**
   * The commit a listed tag names: a lightweight tag's `sha` is the commit (no request); an annotated tag's is a tag
   * object, dereferenced through `git/tags/{sha}` (GitHub's git refs API: never treat a tag object's sha as a commit).
   */
  tagCommit(repo: string, tag: TagRef): Promise<string>;
  /** Whether the repository is private (its artifacts are then downloaded from the API with the token). */
  isPrivate(repo: string): Promise<boolean>;
}

/** Creates the client over an HTTP client whose base is the API (`CODEHOST_API_URL`). */
export function createCodeHost(http: HttpClient): CodeHost {
  const privacy = new Map<string, Promise<boolean>>();
  const repoUrl = (repo: string) => `${http.apiBase}/repos/${repo}`;

  async function json(url: string, options: { allow404: boolean; background?: boolean }): Promise<unknown> {
    const answer = await http.getText(url, {
      ...(options.allow404 ? { allowStatus: [404, 422] } : {}),
      ...(options.background ? { background: true } : {}),
    });
    if (answer.status === 404 || answer.status === 422) return undefined;
    return readJson(answer, url);
  }

  return {
    async matchingTags(repo, prefix) {
      const tags: TagRef[] = [];
      let url: string | undefined = `${repoUrl(repo)}/git/matching-refs/tags/${encodePath(prefix)}`;
      // All matches come in one answer (google/go-github#1567); a `Link: rel="next"` is followed anyway, bounded.
      for (let page = 0; url !== undefined && page < MAX_PAGES; page++) {
        const response = await http.getText(url, { allowStatus: [404, 422] });
        if (response.status === 404) {
          // An empty match is an empty list; a 404 means the repository itself is not there (or not visible).
          throw new HttpError(
            `Cannot find the repository "${repo}" on the code host: check "repo" in the source, or set CODEHOST_TOKEN if it is private`,
            { status: 404 },
          );
        }
        if (response.status === 422) return tags;
        const body = readJson(response, url);
        if (!Array.isArray(body)) throw new HttpError(`Cannot read the tags of "${repo}": expected a list`);
        tags.push(...body.flatMap(parseTagRef));
        url = nextPage(response.link, url);
      }
      return tags;
    },
    async release(repo, tag) {
      const body = await json(`${repoUrl(repo)}/releases/tags/${encodePath(tag)}`, { allow404: true });
      if (body === undefined) return undefined;
      return parseRelease(body, `${repo}@${tag}`);
    },
    async commit(repo, ref) {
      const response = await http.getText(`${repoUrl(repo)}/commits/${encodePath(ref)}`, {
        accept: "application/vnd.github.sha",
        allowStatus: [404, 422],
      });
      if (!response.ok) return undefined;
      const text = response.text.trim();
      // The sha media type answers with the bare 40-digit hash; a JSON commit object is accepted too.
      const sha = /^[0-9a-f]{40}$/.test(text)
        ? text
        : (readJson(response, ref) as { sha?: unknown } | null)?.sha;
      if (typeof sha !== "string" || !/^[0-9a-f]{40,64}$/.test(sha)) {
        throw new HttpError(`Cannot read the commit of "${repo}@${ref}": unexpected answer`);
      }
      return sha;
    },
    async tagCommit(repo, tag) {
      if (tag.sha === "") {
        // A host that lists tag names without their objects (nao1215/block's fake GitHub): ask for the commit.
        const sha = await this.commit(repo, tag.name);
        if (sha === undefined)
          throw new HttpError(
            `Cannot read the commit of "${repo}@${tag.name}": the tag does not name a commit`,
          );
        return sha;
      }
      let ref = { sha: tag.sha, type: tag.type };
      // An annotated tag may point at another tag object; a short chain is followed, a loop is not.
      for (let depth = 0; ref.type === "tag" && depth < 4; depth++) {
        const body = (await json(`${repoUrl(repo)}/git/tags/${ref.sha}`, { allow404: false })) as {
          object?: { sha?: unknown; type?: unknown };
        };
        ref = { sha: String(body?.object?.sha ?? ""), type: String(body?.object?.type ?? "") };
      }
      if (ref.type !== "commit" || !/^[0-9a-f]{40,64}$/.test(ref.sha)) {
        throw new HttpError(
          `Cannot read the commit of "${repo}@${tag.name}": the tag does not name a commit`,
        );
      }
      return ref.sha;
    },
    isPrivate(repo) {
      let known = privacy.get(repo);
      if (known === undefined) {
        // Nothing waits for this answer until the release is chosen: it yields to the resolution chains.
        known = json(repoUrl(repo), { allow404: false, background: true }).then((body) => {
          if (typeof body !== "object" || body === null || Array.isArray(body))
            throw new HttpError(`Cannot read the repository "${repo}": unexpected answer`);
          return (body as { private?: unknown }).private === true;
        });
        privacy.set(repo, known);
      }
      return known;
    },
  };
}

/** Pages of tags followed at most (a defensive bound; the host sends one). */
const MAX_PAGES = 20;

function readJson(answer: TextAnswer, url: string): unknown {
  try {
    return JSON.parse(answer.text) as unknown;
  } catch (cause) {
    throw new HttpError(`Cannot read the answer of ${url}: not JSON`, { cause });
  }
}

function parseTagRef(entry: unknown): TagRef[] {
  const e = entry as { ref?: unknown; object?: { sha?: unknown; type?: unknown } };
  if (typeof e?.ref !== "string" || !e.ref.startsWith("refs/tags/")) return [];
  return [
    {
      name: e.ref.slice("refs/tags/".length),
      sha: String(e.object?.sha ?? ""),
      type: String(e.object?.type ?? ""),
    },
  ];
}

/** The `rel="next"` target of a `Link` header, when it stays on the same origin. */
function nextPage(link: string | null, current: string): string | undefined {
  const match = link ? /<([^>]+)>\s*;\s*rel="next"/.exec(link) : null;
  if (!match?.[1]) return undefined;
  const next = new URL(match[1], current);
  return next.origin === new URL(current).origin ? next.href : undefined;
}

function parseRelease(body: unknown, where: string): Release {
  const r = body as {
    tag_name?: unknown;
    draft?: unknown;
    prerelease?: unknown;
    published_at?: unknown;
    assets?: unknown;
  };
  if (typeof r !== "object" || r === null || !Array.isArray(r.assets)) {
    throw new HttpError(`Cannot read the release ${where}: unexpected answer`);
  }
  const assets = r.assets.flatMap((a: unknown): ReleaseAsset[] => {
    // An entry that is not an object (null, a number) is no asset, as one without a name is not.
    if (typeof a !== "object" || a === null) return [];
    const asset = a as { name?: unknown; url?: unknown; browser_download_url?: unknown; digest?: unknown };
    // Only the fields toolmgr needs are required: hosts shaped like nao1215/block's fake GitHub
    // (internal/fakegh) send name, browser_download_url and digest, and no API `url`.
    if (typeof asset.name !== "string" || typeof asset.browser_download_url !== "string") return [];
    const digest =
      typeof asset.digest === "string" ? /^sha256:([0-9a-fA-F]{64})$/.exec(asset.digest)?.[1] : undefined;
    return [
      {
        name: asset.name,
        ...(typeof asset.url === "string" ? { apiUrl: asset.url } : {}),
        browserUrl: asset.browser_download_url,
        ...(digest === undefined ? {} : { sha256: digest.toLowerCase() }),
      },
    ];
  });
  // ISO 8601 as GitHub writes it (`2026-11-27T10:00:00Z`); anything else is no date, never a guess.
  const published =
    typeof r.published_at === "string" && /^\d{4}-\d\d-\d\dT/.test(r.published_at)
      ? new Date(r.published_at)
      : undefined;
  return {
    tag: String(r.tag_name ?? ""),
    draft: r.draft === true,
    prerelease: r.prerelease === true,
    ...(published === undefined || Number.isNaN(published.getTime()) ? {} : { publishedAt: published }),
    assets,
  };
}

/** Encodes a tag or prefix for a URL path, keeping the `/` a tag may contain (`cosmovisor/v1.0.0`). */
function encodePath(text: string): string {
  return encodeURIComponent(text).replace(/%2F/g, "/");
}
