import { dirname, join } from "node:path";
import { readBoundedText } from "../bounded-read.js";
import { LockfileError, ToolmgrError } from "../errors.js";
import { LOCKFILE_NAME, type Lockfile, lockedArtifact, parseLockfile } from "../lockfile.js";
import type { Platform } from "../platform.js";
import { findRecipe } from "../registry/registry.js";
import { constraintAllows } from "../version/constraint.js";
import { loadProjectWithText, type ProjectConfig, readProjectFile } from "./project-file.js";

/** A project with its lock, both parsed. */
export interface LockedProject {
  readonly project: ProjectConfig;
  readonly lockPath: string;
  readonly lock: Lockfile;
  /** The texts both were parsed from (recorded once found current: verified-project.ts). */
  readonly projectText: string;
  readonly lockText: string;
}

/**
 * Loads the nearest `toolmgr.toml` and the `toolmgr.lock` beside it.
 *
 * @throws {LockfileError} when there is no lock yet (run `toolmgr lock`) or it cannot be parsed
 */
export async function loadLockedProject(cwd: string): Promise<LockedProject> {
  return withLock(await loadProjectWithText(cwd, findRecipe));
}

/**
 * `loadLockedProject` for a project file the caller already found, so the directories above `cwd` are not
 * searched twice (toolchain.ts: `exec` and `which` first look whether there is a project at all).
 */
export async function loadLockedProjectFile(projectFile: string): Promise<LockedProject> {
  return withLock(await readProjectFile(projectFile, findRecipe));
}

/** Reads and parses the lock beside a loaded project file. */
async function withLock(loaded: { project: ProjectConfig; text: string }): Promise<LockedProject> {
  const { project, text: projectText } = loaded;
  const lockPath = join(dirname(project.path), LOCKFILE_NAME);
  let text: string;
  try {
    text = await readBoundedText(lockPath, { kind: "lock", refuse: (m) => new LockfileError(m) });
  } catch (cause) {
    if (cause instanceof ToolmgrError) throw cause;
    throw new LockfileError(`Cannot find ${lockPath}: run \`toolmgr lock\` first`, { cause });
  }
  return { project, lockPath, lock: parseLockfile(text), projectText, lockText: text };
}

/** `staleReasons` as the message that refuses a stale lock: the lock, then one indented line per tool. */
export function staleMessage(lockPath: string, stale: ReadonlyMap<string, string>): string {
  return `${lockPath} is out of date:\n${[...stale].map(([name, why]) => `  ${name}: ${why}`).join("\n")}`;
}

/**
 * Why the lock no longer matches the project for `platform`, one reason per tool (empty when current): a tool
 * missing from the lock or pinned under another constraint, a project-local source whose fingerprint changed, a
 * tool the project dropped, or no artifact for the running platform.
 */
export function staleReasons(locked: LockedProject, platform: Platform): Map<string, string> {
  const reasons = new Map<string, string>();
  for (const tool of locked.project.tools) {
    const pin = locked.lock.tools.find((t) => t.name === tool.name);
    if (pin === undefined) reasons.set(tool.name, "not in toolmgr.lock; run `toolmgr lock`");
    else if (pin.constraint !== tool.constraint.text) {
      reasons.set(
        tool.name,
        `locked for "${pin.constraint}" but toolmgr.toml asks for "${tool.constraint.text}"; run \`toolmgr lock\``,
      );
    } else if (!constraintAllows(tool.constraint, pin.version)) {
      reasons.set(
        tool.name,
        `pinned to "${pin.version}", which "${pin.constraint}" does not allow; run \`toolmgr lock\``,
      );
    } else if (pin.source !== tool.fingerprint) {
      reasons.set(tool.name, "its source definition changed since it was locked; run `toolmgr lock`");
    } else if (lockedArtifact(pin, platform) === undefined) {
      reasons.set(
        tool.name,
        `the lock has no artifact for ${platform}; add "${platform}" to platforms in toolmgr.toml and run \`toolmgr lock\``,
      );
    }
  }
  for (const pin of locked.lock.tools) {
    if (!locked.project.tools.some((t) => t.name === pin.name))
      reasons.set(pin.name, "no longer in toolmgr.toml; run `toolmgr lock`");
  }
  return reasons;
}
