import { lstat, mkdir, realpath, rm } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { LOCKFILE_NAME, type Lockfile, lockedArtifact } from "../lockfile.js";
import { type Platform, platformOs } from "../platform.js";
import { PROJECT_FILE_NAME } from "../project/find-project-file.js";
import type { LockedProject } from "../project/project-state.js";
import { updateFile } from "../replace-file.js";
import { commandName } from "../safe-names.js";
import type { StoreLayout } from "./layout.js";
import { SHIM_FRAGMENT_NAME } from "./layout.js";
import { recordShimAnswers, shimFragment } from "./shim-record.js";

/**
 * Where the store keeps the copy of a project's `toolmgr.toml` and `toolmgr.lock` last found current:
 * `projects/<absolute project directory>/`. The POSIX shim derives the same path from the directory it found the
 * project file in, with no fork (shims.ts).
 */
export function verifiedProjectDir(layout: StoreLayout, projectFile: string): string {
  return join(layout.projectsDir, dirname(projectFile));
}

/** The file beside the copies with what the shim would work out from them (shims.ts reads it). */
export const SHIM_ANSWERS_NAME = "shim-answers";

/**
 * What the POSIX shim's `awk` pass prints for a current project, worked out once: the platform, then per pinned
 * executable `<command> TAB <tool> TAB <version>-<digest12> TAB <bin>`, then `end` (a copy cut short inside a path
 * still has four fields and the right count). A shim that finds the project file and lock equal to the recorded
 * copies prints these lines instead of parsing the lock again (bench/toolmgr/README.md, "sync, shims, exec": the
 * parse cost ~0.5 ms of the 3 ms budget).
 */
export function shimAnswers(lock: Lockfile, platform: Platform): string {
  const lines: string[] = [platform];
  for (const tool of lock.tools) {
    const artifact = lockedArtifact(tool, platform);
    if (artifact === undefined) continue;
    for (const bin of tool.bin) {
      lines.push(
        `${commandName(bin)}\t${tool.name}\t${tool.version}-${artifact.sha256.slice(0, 12)}\t${bin}`,
      );
    }
  }
  return `${[...lines, "end"].join("\n")}\n`;
}

/**
 * Records that `projectText` and `lockText` were found current together (no stale pin), so a shim that finds the
 * very same two texts need not decide staleness again. That matters for project-local sources: their fingerprints
 * need the TOML parser and sha256, which the shim does not have, so without this record every call of such a tool's
 * shim would start Node. Staleness depends on nothing but the two texts, so identical texts mean the same verdict.
 * Written atomically; a failure only costs the shim the slower path, so it is ignored.
 *
 * The record is also how `prune` knows the project (prune.ts). `lock` records every project it locks, so a project
 * that was only locked keeps the artifacts its lock pins; when the lock is not current for this machine's platform
 * (`platform` undefined: a lock for other platforms only, or an unsupported machine) the record has no shim answers,
 * and the shim decides from the project's own files as it would without a record.
 *
 * The user toolset (`global`) is recorded under its own directory alone, which is how the shim finds it (never
 * through `$PWD`); a project also under the directory `$PWD` names it by, when that differs (`logicalProjectDir`).
 */
export async function recordVerifiedProject(
  layout: StoreLayout,
  locked: LockedProject,
  where: {
    readonly cwd: string;
    readonly pwd?: string | undefined;
    readonly platform: Platform | undefined;
    readonly global: boolean;
  },
): Promise<void> {
  const answers = where.platform === undefined ? undefined : shimAnswers(locked.lock, where.platform);
  // Windows has no POSIX shims to answer.
  const fragment =
    where.platform === undefined || platformOs(where.platform) === "windows"
      ? undefined
      : shimFragment(locked.lock, where.platform);
  const dirs = [verifiedProjectDir(layout, locked.project.path)];
  const logical = where.global ? undefined : await logicalProjectDir(dirname(locked.project.path), where);
  if (logical !== undefined) dirs.push(join(layout.projectsDir, logical));
  for (const dir of dirs) {
    try {
      await mkdir(dir, { recursive: true });
      // A copy that is not a regular file (a directory or link put there) could never be replaced by a rename, and the
      // shim's awk fails on it instead of asking `toolmgr exec`: it goes, and a regular file is written in its place.
      await Promise.all(
        [PROJECT_FILE_NAME, LOCKFILE_NAME, SHIM_ANSWERS_NAME].map((name) => removeIfNotFile(join(dir, name))),
      );
      // Answers of an earlier record must never pair with the new copies: they go before the copies change.
      if (answers === undefined) await rm(join(dir, SHIM_ANSWERS_NAME), { force: true });
      await Promise.all([
        updateFile(join(dir, PROJECT_FILE_NAME), locked.projectText),
        updateFile(join(dir, LOCKFILE_NAME), locked.lockText),
        ...(answers === undefined ? [] : [updateFile(join(dir, SHIM_ANSWERS_NAME), answers)]),
      ]);
      if (fragment !== undefined) {
        await recordShimAnswers(dir, {
          projectFile: locked.project.path,
          lockPath: locked.lockPath,
          projectText: locked.projectText,
          lockText: locked.lockText,
          fragment,
        });
      } else await rm(join(dir, SHIM_FRAGMENT_NAME), { force: true });
    } catch {
      // For the shim an optimisation: without it the shim asks `toolmgr exec`, which decides exactly. For `prune`, a
      // project without a record is unknown, which can cost its next `sync` downloads and installs again.
    }
  }
}

async function removeIfNotFile(path: string): Promise<void> {
  const s = await lstat(path).catch(() => undefined);
  if (s !== undefined && !s.isFile()) await rm(path, { recursive: true, force: true });
}

/**
 * The project directory as the shell names it, when that differs from the real path: the shim walks up from `$PWD`,
 * which keeps symbolic links (macOS's /tmp, a linked home), while Node's working directory is the real path.
 */
async function logicalProjectDir(
  projectDir: string,
  where: { readonly cwd: string; readonly pwd?: string | undefined },
): Promise<string | undefined> {
  const { cwd, pwd } = where;
  if (pwd === undefined || !isAbsolute(pwd) || pwd === cwd) return undefined;
  const below = relative(projectDir, cwd);
  if (below.startsWith("..") || isAbsolute(below)) return undefined;
  const logical =
    below === "" ? pwd : pwd.endsWith(`${sep}${below}`) ? pwd.slice(0, -below.length - 1) : undefined;
  if (logical === undefined || logical === projectDir) return undefined;
  const real = await realpath(logical).catch(() => undefined);
  return real === projectDir ? logical : undefined;
}
