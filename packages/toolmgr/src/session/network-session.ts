import type { Deps } from "../deps.js";
import { createHttpClient, type HttpClient, networkOptionsFromEnv } from "../http/client.js";
import { type CodeHost, createCodeHost } from "../http/code-host.js";
import { createFileResponseCache, type ResponseCache } from "../http/response-cache.js";
import { httpCacheFile } from "../store/http-cache-file.js";
import type { StoreLayout } from "../store/layout.js";
import { type MirrorConfig, mirrorConfig } from "../store/mirrors.js";
import { createPullAuthorizer } from "../store/oci-registry.js";

/**
 * What a command that downloads artifacts sets up (`sync`, `mirror push`, `lock`'s trust-on-first-use downloads):
 * one HTTP client from the environment (token, proxies, API URL) and the mirrors, with registry auth for pulls.
 */
export interface DownloadSession {
  readonly client: HttpClient;
  readonly mirrors: MirrorConfig;
  /** Whether a code-host token is set (a private artifact's `api_url` needs one). */
  readonly hasToken: boolean;
}

/** The code-host side of a session: the endpoints, over a client that remembers this project's API answers. */
export interface CodeHostSession extends DownloadSession {
  readonly codeHost: CodeHost;
  /**
   * Writes the remembered answers (once, after resolution, also after a failure so a retry starts with what was
   * learnt; not with `remember: false`, for a command that writes nothing) and notes on stderr when anonymous
   * requests were rate-limited.
   */
  finish(options?: { readonly remember?: boolean }): void;
}

/** Opens a download session from the environment (`sync` and `mirror` share `lock`'s set-up). */
export async function openDownloadSession(
  deps: Deps,
  options: { cache?: ResponseCache } = {},
): Promise<DownloadSession> {
  const network = networkOptionsFromEnv(deps.env);
  const client = createHttpClient({
    fetch: deps.fetch,
    ...network,
    ...(options.cache ? { cache: options.cache } : {}),
  });
  const mirrors = await mirrorConfig(deps.env, deps.runtime);
  const authorize = createPullAuthorizer({ fetch: deps.fetch, env: deps.env, homedir: deps.runtime.homedir });
  return { client, mirrors: { ...mirrors, authorize }, hasToken: network.token !== undefined };
}

/**
 * Opens the code host for a project's `lock` or `outdated`: API answers are remembered per project file in
 * `cache/http/<sha256 of its path>.json` and asked again with their ETag (a 304 costs no rate limit; GitHub REST docs).
 */
export async function openCodeHostSession(
  deps: Deps,
  options: { layout: StoreLayout; projectPath: string },
): Promise<CodeHostSession> {
  const cache = createFileResponseCache(httpCacheFile(options.layout, options.projectPath));
  const session = await openDownloadSession(deps, { cache });
  return {
    ...session,
    codeHost: createCodeHost(session.client),
    finish(options = {}) {
      if (options.remember !== false) cache.flush();
      if (!session.hasToken && session.client.rateLimited) {
        deps.io.stderr.write(
          "toolmgr: note: the code host rate-limited these anonymous requests; set CODEHOST_TOKEN (or GH_TOKEN, GITHUB_TOKEN) for a higher limit\n",
        );
      }
    },
  };
}
