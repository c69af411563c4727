import { access, constants, stat } from "node:fs/promises";
import { delimiter, dirname, join } from "node:path";
import type { Deps } from "../deps.js";
import { LockfileError, NotInstalledError } from "../errors.js";
import { type LockedTool, lockedArtifact } from "../lockfile.js";
import { type Platform, requirePlatform } from "../platform.js";
import { findProjectFile } from "../project/project-file.js";
import {
  type LockedProject,
  loadLockedProjectFile,
  staleMessage,
  staleReasons,
} from "../project/project-state.js";
import { commandName } from "../safe-names.js";
import { installProblem } from "./install.js";
import { installDir, storeLayout, toolmgrHome } from "./layout.js";
import { isShimFile } from "./shims.js";
import { recordVerifiedProject } from "./verified-project.js";

/** One pinned executable of the current project, where its install puts it. */
export interface PinnedCommand {
  readonly command: string;
  readonly tool: LockedTool;
  readonly path: string;
}

/** The current project's pinned, installed toolchain, checked offline. */
export interface Toolchain {
  readonly locked: LockedProject;
  readonly platform: Platform;
  readonly commands: readonly PinnedCommand[];
}

/**
 * Loads the nearest project (undefined outside any project: the caller steps aside to `PATH`) and checks, offline, that its lock is current and every tool is installed whole
 * (issue 10: `exec` and the shims never resolve, download or install).
 *
 * @throws {LockfileError} for a stale lock (fix: `toolmgr lock`)
 * @throws {NotInstalledError} for a missing or damaged install (fix: `toolmgr sync`)
 */
export async function loadToolchain(deps: Deps): Promise<Toolchain | undefined> {
  const platform = requirePlatform(deps.runtime, "run");
  const projectFile = await findProjectFile(deps.cwd);
  if (projectFile === undefined) return undefined;
  const locked = await loadLockedProjectFile(projectFile);
  const stale = staleReasons(locked, platform);
  if (stale.size > 0) {
    throw new LockfileError(staleMessage(locked.lockPath, stale));
  }
  const layout = storeLayout(toolmgrHome(deps.env, deps.runtime));
  const commands: PinnedCommand[] = [];
  for (const tool of locked.lock.tools) {
    const artifact = lockedArtifact(tool, platform);
    if (artifact === undefined) continue;
    const dir = installDir(layout, { name: tool.name, version: tool.version, sha256: artifact.sha256 });
    const problem = await installProblem(dir, tool);
    if (problem !== undefined) {
      throw new NotInstalledError(`"${tool.name}" ${tool.version} is ${problem}; run \`toolmgr sync\``);
    }
    for (const bin of tool.bin) commands.push({ command: commandName(bin), tool, path: join(dir, bin) });
  }
  // Current and installed: the shims may now take this project file and lock as they are without Node.
  await recordVerifiedProject(layout, locked, { cwd: deps.cwd, pwd: deps.env.PWD, platform });
  return { locked, platform, commands };
}

/** The directories of the pinned executables, for the front of `PATH` (none outside a project). */
export function toolchainPath(toolchain: Toolchain | undefined): string[] {
  return [...new Set((toolchain?.commands ?? []).map((c) => dirname(c.path)))];
}

/**
 * Where the shim steps aside to: the first executable `command` on `path` outside the shims directory
 * (issue 10: putting the shims on `PATH` never takes a tool away).
 */
export async function nextOnPath(
  command: string,
  options: { path: string; shimsDir: string },
): Promise<string | undefined> {
  for (const dir of options.path.split(delimiter)) {
    if (dir === options.shimsDir || dir === `${options.shimsDir}/`) continue;
    const candidate = join(dir === "" ? "." : dir, command);
    try {
      if ((await stat(candidate)).isFile()) {
        await access(candidate, constants.X_OK);
        // A toolmgr shim elsewhere on PATH (a copy, another store's) is never the fallback, as in the shim itself.
        if (await isShimFile(candidate)) continue;
        return candidate;
      }
    } catch {
      // Not here: keep walking, as the shim does.
    }
  }
  return undefined;
}
