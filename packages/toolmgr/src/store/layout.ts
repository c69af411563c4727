import { join, win32 } from "node:path";

/** Where the store keeps things (spec: "Store"); shared by every project. */
export interface StoreLayout {
  /** `$TOOLMGR_HOME`. */
  readonly home: string;
  /** `cache/sha256`: verified artifacts, named by their digest. */
  readonly cacheDir: string;
  /** `cache/http`: per project, remembered code-host answers with their ETags, for conditional re-lock requests. */
  readonly httpCacheDir: string;
  /** `tools`: extracted installs, `tools/<name>/<version>-<digest12>/`. */
  readonly toolsDir: string;
  /** `shims`: one file per command; the only directory to put on `PATH`. */
  readonly shimsDir: string;
  /** `projects`: per project directory, the project file and lock last found current (verified-project.ts). */
  readonly projectsDir: string;
}

/**
 * The store's home: `TOOLMGR_HOME`, else `$XDG_DATA_HOME/toolmgr`, else `~/.local/share/toolmgr`;
 * on Windows `%LOCALAPPDATA%\toolmgr` (spec: "Store").
 */
export function toolmgrHome(
  env: Readonly<Record<string, string | undefined>>,
  system: { readonly platform: string; readonly homedir: string },
): string {
  if (env.TOOLMGR_HOME) return env.TOOLMGR_HOME;
  if (system.platform === "win32") {
    return win32.join(env.LOCALAPPDATA || win32.join(system.homedir, "AppData", "Local"), "toolmgr");
  }
  if (env.XDG_DATA_HOME) return join(env.XDG_DATA_HOME, "toolmgr");
  return join(system.homedir, ".local", "share", "toolmgr");
}

/** The layout of a store rooted at `home`. */
export function storeLayout(home: string): StoreLayout {
  return {
    home,
    cacheDir: join(home, "cache", "sha256"),
    httpCacheDir: join(home, "cache", "http"),
    toolsDir: join(home, "tools"),
    shimsDir: join(home, "shims"),
    projectsDir: join(home, "projects"),
  };
}

/** Path of a verified artifact in the cache. `sha256` is 64 lower-case hex digits. */
export function cachedArtifactPath(layout: StoreLayout, sha256: string): string {
  return join(layout.cacheDir, sha256);
}

/** Directory of one install: `tools/<name>/<version>-<digest12>` (`digest12`: the first 12 hex digits). */
export function installDir(
  layout: StoreLayout,
  tool: { readonly name: string; readonly version: string; readonly sha256: string },
): string {
  return join(layout.toolsDir, tool.name, `${tool.version}-${tool.sha256.slice(0, 12)}`);
}

/**
 * In a project's record (`projects/<dir>/`, verified-project.ts): the answers the shim sources (`.`) while the
 * project's files are the recorded ones (shim-record.ts).
 */
export const SHIM_FRAGMENT_NAME = "shim-answers.sh";
/** Hard links to the project's `toolmgr.toml` and `toolmgr.lock` as they were when last found current. */
export const TOML_LINK_NAME = "toolmgr.toml.link";
export const LOCK_LINK_NAME = "toolmgr.lock.link";
