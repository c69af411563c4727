import { join } from "node:path";
import { ProjectFileError } from "../errors.js";
import { findProjectFile, isFile, PROJECT_FILE_NAME } from "./find-project-file.js";

/**
 * The user toolset's `toolmgr.toml`: `$XDG_CONFIG_HOME/toolmgr/toolmgr.toml`, else `~/.config/toolmgr/toolmgr.toml`
 * (beside `config.toml`), with its `toolmgr.lock` beside it (README "A toolset outside projects"). It is locked and
 * installed only by `lock --global` and `sync --global`; shims, `exec` and `which` use it for a command the nearest
 * project does not pin.
 */
export function userToolsetFile(
  env: Readonly<Record<string, string | undefined>>,
  runtime: { readonly homedir: string },
): string {
  return join(env.XDG_CONFIG_HOME || join(runtime.homedir, ".config"), "toolmgr", PROJECT_FILE_NAME);
}

/**
 * The project file a command works on: with `global`, the user toolset's (which must exist: nothing is created
 * implicitly); otherwise the nearest `toolmgr.toml` above `cwd`.
 *
 * @throws {ProjectFileError} when there is none
 */
export async function toolsetFile(options: {
  readonly global: boolean;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly runtime: { readonly homedir: string };
}): Promise<string> {
  if (options.global) {
    const path = userToolsetFile(options.env, options.runtime);
    if (!(await isFile(path))) {
      throw new ProjectFileError(
        `Cannot find the user toolset ${path}: create it with a [tools] table (as a project's toolmgr.toml), then run \`toolmgr lock --global\``,
      );
    }
    return path;
  }
  const path = await findProjectFile(options.cwd);
  if (path === undefined) {
    throw new ProjectFileError(
      `Cannot find ${PROJECT_FILE_NAME} in "${options.cwd}" or any parent directory: create one with a [tools] table (or use --global for the user toolset)`,
    );
  }
  return path;
}

/** A message's `toolmgr lock`/`toolmgr sync` hints as they must read for the user toolset (`--global`). */
export function scopedHints(message: string, global: boolean): string {
  return global
    ? message
        .replaceAll("`toolmgr lock`", "`toolmgr lock --global`")
        .replaceAll("`toolmgr sync`", "`toolmgr sync --global`")
    : message;
}
