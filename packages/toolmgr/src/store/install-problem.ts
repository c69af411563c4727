import { accessSync, constants, statSync } from "node:fs";
import { join } from "node:path";
import type { LockedTool } from "../lockfile.js";

/** The completion marker: written last inside an install, so its presence means the install is whole. */
export const INSTALL_MARKER = ".toolmgr-install";

/** What is wrong with an install, or undefined when it is whole (synchronous `stat`s: find-project-file.ts says why). */
export async function installProblem(
  dir: string,
  tool: Pick<LockedTool, "bin">,
): Promise<string | undefined> {
  if (!exists(dir)) return "not installed";
  // A regular file, as the shim's `[ -f ]` wants it (shims.ts): a directory or FIFO of that name is no marker.
  if (!isFile(join(dir, INSTALL_MARKER))) return "damaged: its completion marker is missing";
  for (const bin of tool.bin) {
    try {
      accessSync(join(dir, bin), constants.X_OK);
    } catch {
      return `damaged: the executable "${bin}" is missing`;
    }
  }
  return undefined;
}

function exists(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isFile() === true;
  } catch {
    return false;
  }
}
