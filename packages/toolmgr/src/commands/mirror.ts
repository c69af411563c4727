import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { CommandArgs } from "../command-table.js";
import type { Deps } from "../deps.js";
import { asStoreError, UsageError } from "../errors.js";
import { lockedArtifactRef } from "../lockfile.js";
import { loadLockedProject } from "../project/project-state.js";
import { openDownloadSession } from "../session/network-session.js";
import { fetchArtifact } from "../store/artifact-cache.js";
import { storeLayout, toolmgrHome } from "../store/layout.js";
import { parseOciReference } from "../store/mirrors.js";
import { createOciPusher, registryCredentials } from "../store/oci-registry.js";

/** Media types of what `mirror push` tags: the lock as the manifest's config, each artifact as a layer. */
const LOCK_TYPE = "application/vnd.toolmgr.lock.v1+toml";
const ARTIFACT_TYPE = "application/vnd.toolmgr.artifact.v1";

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
  const { client, mirrors, hasToken } = await openDownloadSession(deps);
  const layout = storeLayout(toolmgrHome(deps.env, deps.runtime));
  const pusher = createOciPusher(registry, {
    fetch: deps.fetch,
    credentials: await registryCredentials(registry, { env: deps.env, homedir: deps.runtime.homedir }),
  });
  const lines: string[] = [];
  let pushed = 0;
  let present = 0;
  const seen = new Set<string>();
  const sizes = new Map<string, number>();
  for (const tool of locked.lock.tools) {
    for (const artifact of tool.artifacts) {
      if (seen.has(artifact.sha256)) continue;
      seen.add(artifact.sha256);
      let path: string;
      try {
        ({ path } = await fetchArtifact(lockedArtifactRef(tool, artifact), {
          layout,
          client,
          hasToken,
          mirrors,
          onWarning: (text) => deps.io.stderr.write(`${text}\n`),
        }));
      } catch (error) {
        throw asStoreError(error, layout.home);
      }
      const data = await readFile(path);
      sizes.set(artifact.sha256, data.length);
      const uploaded = await pusher.pushBlob(artifact.sha256, data);
      if (uploaded) pushed++;
      else present++;
      lines.push(
        `${uploaded ? "pushed " : "present"} ${tool.name} ${tool.version} ${artifact.platform} sha256:${artifact.sha256.slice(0, 12)}`,
      );
    }
  }
  // The lock itself is the manifest's config, and the tag names the lock's digest: the blobs stay referenced (safe
  // from the registry's garbage collection) and a mirror's operator can see which lock needs them.
  const lockText = Buffer.from(await readFile(locked.lockPath));
  const lockDigest = createHash("sha256").update(lockText).digest("hex");
  await pusher.pushBlob(lockDigest, lockText);
  const layers = [...seen].map((digest) => ({
    mediaType: ARTIFACT_TYPE,
    digest: `sha256:${digest}`,
    size: sizes.get(digest) ?? 0,
  }));
  const tag = `lock-${lockDigest.slice(0, 16)}`;
  await pusher.pushManifest(tag, {
    config: { mediaType: LOCK_TYPE, digest: `sha256:${lockDigest}`, size: lockText.length },
    layers,
  });
  if (!quiet) {
    lines.push(
      `tagged ${registry.repository}:${tag} (references every artifact, so the registry keeps them)`,
    );
    lines.push(`${target}: ${pushed} pushed, ${present} already there`);
    deps.io.stdout.write(`${lines.join("\n")}\n`);
  }
  return 0;
}
