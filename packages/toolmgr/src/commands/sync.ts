import type { CommandArgs } from "../command-table.js";
import { mapConcurrent } from "../concurrency.js";
import type { Deps } from "../deps.js";
import { asStoreError, LockfileError } from "../errors.js";
import { lockedArtifact, lockedArtifactRef } from "../lockfile.js";
import { type Platform, requirePlatform } from "../platform.js";
import {
  type LockedProject,
  loadLockedProjectFile,
  staleMessage,
  staleReasons,
} from "../project/project-state.js";
import { scopedHints, toolsetFile } from "../project/toolset.js";
import { commandName } from "../safe-names.js";
import type { DownloadSession } from "../session/network-session.js";
import { installArtifact } from "../store/install.js";
import { installProblem } from "../store/install-problem.js";
import { installDir, type StoreLayout, storeLayout, toolmgrHome } from "../store/layout.js";
import { sweepStore } from "../store/leftovers.js";
import { writeShims } from "../store/shims.js";
import { asOptimisticSync, waitOptions } from "../store/store-activity.js";
import { recordVerifiedProject } from "../store/verified-project.js";

/** Downloads in flight at once. */
const CONCURRENCY = 4;

/** How long a sync waits for a `toolmgr prune` of its store to end. */
const PRUNE_WAIT_MS = 10 * 60 * 1000;

/**
 * `toolmgr sync [--quiet] [--global]`: installs, for the running platform, every tool of the nearest `toolmgr.lock`
 * (or the user toolset's) using only
 * what the lock records; refuses a stale lock before touching the store; writes the shims last, so a failure leaves
 * them unchanged.
 */
export async function syncCommand(args: CommandArgs, deps: Deps): Promise<number> {
  const quiet = args.values.quiet === true;
  const platform = requirePlatform(deps.runtime, "sync");
  const global = args.values.global === true;
  const locked = await loadLockedProjectFile(await toolsetFile({ global, ...deps }));
  const stale = staleReasons(locked, platform);
  if (stale.size > 0) {
    throw new LockfileError(scopedHints(`Cannot sync: ${staleMessage(locked.lockPath, stale)}`, global));
  }
  // The download code loads only when something is missing, so re-syncing an installed toolchain stays cheap.
  let downloader: Promise<Downloader> | undefined;
  const download = () => {
    downloader ??= loadDownloader(deps);
    return downloader;
  };
  const layout = storeLayout(toolmgrHome(deps.env, deps.runtime));
  try {
    await sweepStore(layout, deps.now().getTime());
  } catch (error) {
    throw asStoreError(error, layout.home);
  }
  const tty = deps.io.stderr.isTTY === true && !quiet;
  try {
    // Never beside a `toolmgr prune` of this store (store-activity.ts); run again when one overlapped.
    const out = await asOptimisticSync(
      layout,
      () => installAll({ locked, platform, layout, quiet, tty, global, download }, deps),
      waitOptions(deps, {
        timeoutMs: PRUNE_WAIT_MS,
        onWait: (what) => {
          if (!quiet) deps.io.stderr.write(`toolmgr: waiting: ${what}\n`);
        },
      }),
    );
    deps.io.stdout.write(out);
    return 0;
  } catch (error) {
    throw asStoreError(error, layout.home);
  }
}

async function installAll(
  context: {
    locked: LockedProject;
    platform: Platform;
    layout: StoreLayout;
    quiet: boolean;
    tty: boolean;
    global: boolean;
    download: () => Promise<Downloader>;
  },
  deps: Deps,
): Promise<string> {
  const { locked, platform, layout, quiet, tty, global, download } = context;
  const results = await mapConcurrent(
    locked.lock.tools,
    async (tool) => {
      const artifact = lockedArtifact(tool, platform);
      if (artifact === undefined)
        throw new LockfileError(`Cannot sync "${tool.name}": no artifact for ${platform}`);
      // A whole install needs neither the cache nor the network: re-syncing an installed toolchain stays cheap.
      const dir = installDir(layout, { name: tool.name, version: tool.version, sha256: artifact.sha256 });
      if ((await installProblem(dir, tool)) === undefined) return { tool, state: "present" as const };
      const started = deps.now().getTime();
      let lastDraw = 0;
      const { fetchArtifact, client, mirrors, hasToken } = await download();
      const cached = await fetchArtifact(lockedArtifactRef(tool, artifact), {
        layout,
        client,
        hasToken,
        mirrors,
        onWarning: (text) => deps.io.stderr.write(`${tty ? "\r\x1b[K" : ""}${text}\n`),
        onProgress: ({ received, total }) => {
          const now = deps.now().getTime();
          if (!tty || now - lastDraw < 100) return;
          lastDraw = now;
          const rate = received / Math.max(0.001, (now - started) / 1000);
          const of = total ? `/${mb(total)}` : "";
          deps.io.stderr.write(
            `\r\x1b[K${tool.name} ${tool.version}: ${mb(received)}${of} MB at ${mb(rate)} MB/s`,
          );
        },
      });
      if (tty) deps.io.stderr.write("\r\x1b[K");
      if (!quiet && !tty && !cached.cacheHit)
        deps.io.stderr.write(`downloaded ${tool.name} ${tool.version} (${artifact.url})\n`);
      const state = await installArtifact(cached.path, { layout, tool, artifact, now: deps.now });
      return { tool, state };
    },
    { limit: CONCURRENCY },
  );
  const commands = locked.lock.tools.flatMap((t) => t.bin.map(commandName));
  const shims = await writeShims(commands, { layout, platform, launcher: deps.launcher });
  await recordVerifiedProject(layout, locked, { cwd: deps.cwd, pwd: deps.env.PWD, platform, global });
  if (quiet) return "";
  const width = Math.max(...results.map((r) => r.tool.name.length)) + 2;
  const lines = results.map((r) => `${r.tool.name.padEnd(width)}${r.state} ${r.tool.version}`);
  lines.push(`shims: ${shims.map((s) => s.slice(layout.shimsDir.length + 1)).join(", ")}`);
  lines.push(`add to PATH: ${layout.shimsDir}`);
  return `${lines.join("\n")}\n`;
}

function mb(bytes: number): string {
  return (bytes / 1_000_000).toFixed(1);
}

type Downloader = DownloadSession & {
  readonly fetchArtifact: typeof import("../store/artifact-cache.js").fetchArtifact;
};

async function loadDownloader(deps: Deps): Promise<Downloader> {
  const [{ fetchArtifact }, { openDownloadSession }] = await Promise.all([
    import("../store/artifact-cache.js"),
    import("../session/network-session.js"),
  ]);
  return { fetchArtifact, ...(await openDownloadSession(deps)) };
}
