import { join } from "node:path";
import type { CommandArgs } from "../command-table.js";
import type { Deps } from "../deps.js";
import { asStoreError, LockfileError } from "../errors.js";
import { type Platform, platformOs, requirePlatform } from "../platform.js";
import type { LockedProject } from "../project/project-state.js";
import { scopedHints, toolsetFile } from "../project/toolset.js";
import type { DownloadSession } from "../session/network-session.js";
import { type StoreLayout, storeLayout, toolmgrHome } from "../store/layout.js";
import { sweepStore } from "../store/leftovers.js";
import { type RecordedTool, recordedTools } from "../store/recorded-answers.js";
import { currentShims } from "../store/shims.js";

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
  const file = await toolsetFile({ global, ...deps });
  const layout = storeLayout(toolmgrHome(deps.env, deps.runtime));
  // A project unchanged since it was found current, every install whole and every shim current: stat checks only
  // (no TOML parsed, nothing hashed, nothing written), the answers read back from the record (recorded-answers.ts).
  const recorded =
    platformOs(platform) === "windows"
      ? undefined
      : await recordedTools(layout, { projectFile: file, platform });
  if (recorded !== undefined) {
    const done = await recordedSync(recorded, {
      layout,
      platform,
      quiet,
      launcher: deps.launcher,
      now: deps.now(),
    });
    if (done !== undefined) {
      // Nothing written for nothing to say: process.stdout builds its stream (Node's net and stream modules) on
      // first use, a cost `sync --quiet` on an installed toolchain need not pay.
      if (done !== "") deps.io.stdout.write(done);
      return 0;
    }
  }
  const [{ loadLockedProjectFile, staleMessage, staleReasons }] = await Promise.all([
    import("../project/project-state.js"),
  ]);
  const locked = await loadLockedProjectFile(file);
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
  try {
    await sweepStore(layout, deps.now().getTime());
  } catch (error) {
    throw asStoreError(error, layout.home);
  }
  const tty = !quiet && deps.io.stderr.isTTY === true;
  const { asOptimisticSync, waitOptions } = await import("../store/store-activity.js");
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
    if (out !== "") deps.io.stdout.write(out);
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
  const [
    { lockedArtifact, lockedArtifactRef },
    { installArtifact },
    { installProblem },
    { installDir },
    { writeShims },
    { recordVerifiedProject },
    { commandName },
    { mapConcurrent },
  ] = await Promise.all([
    import("../lockfile.js"),
    import("../store/install.js"),
    import("../store/install-problem.js"),
    import("../store/layout.js"),
    import("../store/shims.js"),
    import("../store/verified-project.js"),
    import("../safe-names.js"),
    import("../concurrency.js"),
  ]);
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

/**
 * `sync` of a recorded project when nothing needs doing: every install whole and every shim current (shims.ts
 * `currentShims`). Returns the output, or undefined when anything needs the full sync. Leftovers are swept as a
 * full sync sweeps them.
 */
async function recordedSync(
  tools: readonly RecordedTool[],
  options: {
    layout: StoreLayout;
    platform: Platform;
    quiet: boolean;
    launcher?: readonly string[] | undefined;
    now: Date;
  },
): Promise<string | undefined> {
  const { layout } = options;
  const { installProblem } = await import("../store/install-problem.js");
  for (const tool of tools) {
    const install = tool.pins[0]?.install;
    if (install === undefined) return undefined;
    const problem = await installProblem(join(layout.toolsDir, tool.name, install), {
      bin: tool.pins.map((p) => p.bin),
    });
    if (problem !== undefined) return undefined;
  }
  const commands = [...new Set(tools.flatMap((t) => t.pins.map((p) => p.command)))].sort();
  if (!(await currentShims(commands, { layout, platform: options.platform, launcher: options.launcher })))
    return undefined;
  try {
    await sweepStore(layout, options.now.getTime());
  } catch (error) {
    throw asStoreError(error, layout.home);
  }
  if (options.quiet) return "";
  const width = Math.max(...tools.map((t) => t.name.length)) + 2;
  const lines = tools.map((t) => `${t.name.padEnd(width)}present ${t.version}`);
  lines.push(`shims: ${commands.join(", ")}`);
  lines.push(`add to PATH: ${layout.shimsDir}`);
  return `${lines.join("\n")}\n`;
}
