import { readFile } from "node:fs/promises";
import type { CommandArgs } from "../command-table.js";
import type { Deps } from "../deps.js";
import { asStoreError, UsageError } from "../errors.js";
import { createHttpClient, networkOptionsFromEnv } from "../http/client.js";
import { loadLockedProject } from "../project/project-state.js";
import { fetchArtifact } from "../store/artifact-cache.js";
import { storeLayout, toolmgrHome } from "../store/layout.js";
import { mirrorConfig, parseOciReference } from "../store/mirrors.js";
import { createOciPusher, registryCredentials } from "../store/oci-push.js";

/**
 * `toolmgr mirror push oci://host[:port]/repository`: uploads every artifact the nearest `toolmgr.lock` records, for
 * every platform, as blobs named by their sha256, taking them from the store's cache and downloading (and verifying)
 * what is missing. A `sync` with that registry in `TOOLMGR_MIRRORS` then needs nothing else.
 */
export async function mirrorCommand(args: CommandArgs, deps: Deps): Promise<number> {
  const [action, target] = args.positionals;
  if (action !== "push" || target === undefined) {
    throw new UsageError("Usage: toolmgr mirror push oci://host[:port]/repository");
  }
  const registry = parseOciReference(target, "Cannot push");
  const quiet = args.values.quiet === true;
  const locked = await loadLockedProject(deps.cwd);
  const network = networkOptionsFromEnv(deps.env);
  const client = createHttpClient({ fetch: deps.fetch, ...network });
  const mirrors = await mirrorConfig(deps.env, deps.runtime);
  const layout = storeLayout(toolmgrHome(deps.env, deps.runtime));
  const pusher = createOciPusher(registry, {
    fetch: deps.fetch,
    credentials: await registryCredentials(registry, { env: deps.env, homedir: deps.runtime.homedir }),
  });
  const lines: string[] = [];
  let pushed = 0;
  let present = 0;
  const seen = new Set<string>();
  for (const tool of locked.lock.tools) {
    for (const artifact of tool.artifacts) {
      if (seen.has(artifact.sha256)) continue;
      seen.add(artifact.sha256);
      let path: string;
      try {
        ({ path } = await fetchArtifact(
          {
            tool: tool.name,
            url: artifact.url,
            apiUrl: artifact.apiUrl,
            sha256: artifact.sha256,
            version: tool.version,
          },
          {
            layout,
            client,
            hasToken: network.token !== undefined,
            mirrors,
            onWarning: (text) => deps.io.stderr.write(`${text}\n`),
          },
        ));
      } catch (error) {
        throw asStoreError(error, layout.home);
      }
      const uploaded = await pusher.pushBlob(artifact.sha256, await readFile(path));
      if (uploaded) pushed++;
      else present++;
      lines.push(
        `${uploaded ? "pushed " : "present"} ${tool.name} ${tool.version} ${artifact.platform} sha256:${artifact.sha256.slice(0, 12)}`,
      );
    }
  }
  if (!quiet) {
    lines.push(`${target}: ${pushed} pushed, ${present} already there`);
    deps.io.stdout.write(`${lines.join("\n")}\n`);
  }
  return 0;
}
