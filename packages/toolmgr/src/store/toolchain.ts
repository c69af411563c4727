import { accessSync, constants, statSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import type { Deps } from "../deps.js";
import { LockfileError, NotInstalledError } from "../errors.js";
import { detectPlatform, type Platform, requirePlatform } from "../platform.js";
import { findProjectFile, isFile } from "../project/find-project-file.js";
import { scopedHints, userToolsetFile } from "../project/toolset.js";
import { installProblem } from "./install-problem.js";
import { installDir, type StoreLayout, storeLayout, toolmgrHome } from "./layout.js";
import { recordedTools } from "./recorded-answers.js";

/** One pinned executable of the current project, where its install puts it. */
export interface PinnedCommand {
  readonly command: string;
  readonly tool: string;
  readonly path: string;
}

/** The current project's pinned, installed toolchain, checked offline. */
export interface Toolchain {
  readonly lockPath: string;
  readonly platform: Platform;
  readonly commands: readonly PinnedCommand[];
}

/**
 * Loads the toolchain of one project file (or the user toolset's, `global`) and checks, offline, that its lock is
 * current and every tool is installed whole (`exec` and the shims never resolve, download or install).
 * A project unchanged since `sync`/`exec` recorded it is answered from the record, as the shim answers it
 * (recorded-answers.ts); the parsers are loaded only for the full check.
 *
 * @throws {LockfileError} for a stale lock (fix: `toolmgr lock`, `--global` for the user toolset)
 * @throws {NotInstalledError} for a missing or damaged install (fix: `toolmgr sync`)
 */
async function loadToolchain(
  deps: Deps,
  options: { readonly projectFile: string; readonly global: boolean },
): Promise<Toolchain> {
  const platform = requirePlatform(deps.runtime, "run");
  const { global, projectFile } = options;
  const layout = storeLayout(toolmgrHome(deps.env, deps.runtime));
  const recorded = await recordedTools(layout, { projectFile, platform });
  if (recorded !== undefined) {
    const commands: PinnedCommand[] = [];
    for (const tool of recorded) {
      const [first] = tool.pins;
      if (first === undefined) continue;
      const dir = join(layout.toolsDir, tool.name, first.install);
      await checkInstall(dir, {
        name: tool.name,
        version: tool.version,
        bin: tool.pins.map((p) => p.bin),
        global,
      });
      for (const pin of tool.pins)
        commands.push({ command: pin.command, tool: tool.name, path: join(dir, pin.bin) });
    }
    return { lockPath: join(dirname(projectFile), "toolmgr.lock"), platform, commands };
  }
  return verifiedToolchain(deps, { projectFile, global, platform, layout });
}

/** The full check: parse both files, refuse a stale lock, check every install, record the project for next time. */
async function verifiedToolchain(
  deps: Deps,
  options: { projectFile: string; global: boolean; platform: Platform; layout: StoreLayout },
): Promise<Toolchain> {
  const { global, platform, layout } = options;
  const [
    { loadLockedProjectFile, staleMessage, staleReasons },
    { lockedArtifact },
    { commandName },
    { recordVerifiedProject },
  ] = await Promise.all([
    import("../project/project-state.js"),
    import("../lockfile.js"),
    import("../safe-names.js"),
    import("./verified-project.js"),
  ]);
  const locked = await loadLockedProjectFile(options.projectFile).catch((error: unknown) => {
    // A missing or unreadable user lock is fixed with `lock --global`, as the shim says (shims.ts `_tm_g`).
    if (global && error instanceof LockfileError)
      throw new LockfileError(scopedHints(error.message, true), { cause: error });
    throw error;
  });
  const stale = staleReasons(locked, platform);
  if (stale.size > 0) {
    throw new LockfileError(scopedHints(staleMessage(locked.lockPath, stale), global));
  }
  const commands: PinnedCommand[] = [];
  for (const tool of locked.lock.tools) {
    const artifact = lockedArtifact(tool, platform);
    if (artifact === undefined) continue;
    const dir = installDir(layout, { name: tool.name, version: tool.version, sha256: artifact.sha256 });
    await checkInstall(dir, { name: tool.name, version: tool.version, bin: tool.bin, global });
    for (const bin of tool.bin)
      commands.push({ command: commandName(bin), tool: tool.name, path: join(dir, bin) });
  }
  // Current and installed: the shims may now take this project file and lock as they are without Node.
  await recordVerifiedProject(layout, locked, { cwd: deps.cwd, pwd: deps.env.PWD, platform, global });
  return { lockPath: locked.lockPath, platform, commands };
}

/** Refuses a missing or damaged install in the words the shim uses too. */
async function checkInstall(
  dir: string,
  tool: { name: string; version: string; bin: readonly string[]; global: boolean },
): Promise<void> {
  const problem = await installProblem(dir, tool);
  if (problem !== undefined) {
    throw new NotInstalledError(
      scopedHints(`"${tool.name}" ${tool.version} is ${problem}; run \`toolmgr sync\``, tool.global),
    );
  }
}

/** Where a command is pinned: the nearest project, else the user toolset, else nowhere. */
export interface CommandToolchains {
  /** The nearest project's toolchain (undefined outside any project). */
  readonly project: Toolchain | undefined;
  /** The user toolset's toolchain, loaded only when the project does not pin the command. */
  readonly user: Toolchain | undefined;
  /** The executable to run, from the first of the two that pins the command. */
  readonly pinned: PinnedCommand | undefined;
}

/**
 * The resolution order of shims, `exec` and `which` for `command`: the nearest project's pin; otherwise the user
 * toolset's; otherwise neither (the caller steps aside to `PATH`). A toolchain that is loaded is checked whole, as
 * the shim checks it.
 */
export async function commandToolchains(command: string, deps: Deps): Promise<CommandToolchains> {
  const projectFile = await findProjectFile(deps.cwd);
  const project =
    projectFile === undefined ? undefined : await loadToolchain(deps, { projectFile, global: false });
  const pinned = project?.commands.find((c) => c.command === command);
  if (pinned !== undefined) return { project, user: undefined, pinned };
  const userFile = userToolsetFile(deps.env, deps.runtime);
  if (userFile === projectFile || !(await isFile(userFile))) return { project, user: undefined, pinned };
  const user = await loadToolchain(deps, { projectFile: userFile, global: true });
  return { project, user, pinned: user.commands.find((c) => c.command === command) };
}

/**
 * The commands shims, `exec` and `which` would run from a pin here, in their order: the nearest project's, then the
 * user toolset's. For completion: read from the locks alone (nothing checked, nothing recorded), and a project or
 * toolset whose files cannot be read contributes nothing rather than an error.
 */
export async function pinnedCommandNames(deps: Deps): Promise<string[]> {
  const [{ loadLockedProjectFile }, { lockedArtifact }, { commandName }] = await Promise.all([
    import("../project/project-state.js"),
    import("../lockfile.js"),
    import("../safe-names.js"),
  ]);
  const platform = detectPlatform(deps.runtime);
  const files = [await findProjectFile(deps.cwd), userToolsetFile(deps.env, deps.runtime)];
  const names: string[] = [];
  for (const file of [...new Set(files)]) {
    if (file === undefined || platform === undefined) continue;
    const locked = await loadLockedProjectFile(file).catch(() => undefined);
    for (const tool of locked?.lock.tools ?? []) {
      if (lockedArtifact(tool, platform) === undefined) continue;
      for (const bin of tool.bin) names.push(commandName(bin));
    }
  }
  return [...new Set(names)];
}

/** The directories of the pinned executables, for the front of `PATH`: the project's, then the user toolset's. */
export function toolchainPath(toolchains: CommandToolchains): string[] {
  return [
    ...new Set(
      [...(toolchains.project?.commands ?? []), ...(toolchains.user?.commands ?? [])].map((c) =>
        dirname(c.path),
      ),
    ),
  ];
}

/**
 * Where the shim steps aside to: the first executable `command` on `path` outside the shims directory
 * (putting the shims on `PATH` never takes a tool away).
 */
export async function nextOnPath(
  command: string,
  options: { path: string; shimsDir: string },
): Promise<string | undefined> {
  for (const dir of options.path.split(delimiter)) {
    if (dir === options.shimsDir || dir === `${options.shimsDir}/`) continue;
    const candidate = join(dir === "" ? "." : dir, command);
    try {
      if (statSync(candidate).isFile()) {
        accessSync(candidate, constants.X_OK);
        // A toolmgr shim elsewhere on PATH (a copy, another store's) is never the fallback, as in the shim itself.
        const { isShimFile } = await import("./shim-file.js");
        if (await isShimFile(candidate)) continue;
        return candidate;
      }
    } catch {
      // Not here: keep walking, as the shim does.
    }
  }
  return undefined;
}
