import { SourceError } from "./errors.js";

// Names that become parts of paths in the store (a channel through its tag, an executable path, a command's shim
// name): validated here, once, for recipes, project files and locks alike.

/** Longest channel name (spec: "Limits"); it becomes part of a directory name in the store. */
export const MAX_CHANNEL_LENGTH = 32;

/** Validates a channel name (spec: Version forms, rules 1–2): it becomes part of a directory name in the store. */
export function checkChannelName(name: string, where: string): void {
  if (name.length === 0 || name.length > MAX_CHANNEL_LENGTH) {
    throw new SourceError(
      `Invalid channel "${name}" in ${where}: a channel name has 1 to ${MAX_CHANNEL_LENGTH} characters`,
    );
  }
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) || name.includes("..")) {
    throw new SourceError(
      `Invalid channel "${name}" in ${where}: use letters, digits, ".", "_" and "-" (no "/", "\\" or "..")`,
    );
  }
}

/**
 * Validates an executable path from a recipe or a lock: relative, no `..`, no empty or `.` segments, no backslash,
 * so it can never point outside its install directory (a lock arrives through pull requests too).
 */
export function checkBinPath(path: string, where: string): void {
  const segments = path.split("/");
  if (
    path.length === 0 ||
    path.startsWith("/") ||
    path.includes("\\") ||
    path.includes("\0") ||
    /^[A-Za-z]:/.test(path) ||
    segments.some((s) => s === "" || s === "." || s === "..")
  ) {
    throw new SourceError(
      `Invalid executable path "${path}" in ${where}: use a relative path inside the archive`,
    );
  }
  // The last segment becomes a command: a shim's file name (and a line of its text), a word of `which --list`, which
  // bash completion hands to `compgen -W`, and that expands `$(…)` in its words. A lock arrives with a cloned
  // repository, so only the characters real executables use are accepted: a name like `$(id>x)` would otherwise run
  // at the first TAB after `toolmgr exec`. No leading "." (the shims directory's own files) or "-" (an option).
  const command = segments[segments.length - 1] ?? "";
  if (
    !/^[A-Za-z0-9][A-Za-z0-9._+-]*$/.test(command) ||
    segments.slice(0, -1).some((s) => !/^[A-Za-z0-9._@+-]+$/.test(s))
  ) {
    throw new SourceError(
      `Invalid executable path ${JSON.stringify(path)} in ${where}: use letters, digits, ".", "_", "+" and "-" (the command name starts with a letter or digit), as executables are named`,
    );
  }
}

/** The command name an executable path provides (its last segment, without a Windows `.exe`). */
export function commandName(binPath: string): string {
  const base = binPath.slice(binPath.lastIndexOf("/") + 1);
  return base.toLowerCase().endsWith(".exe") ? base.slice(0, -4) : base;
}
