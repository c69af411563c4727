import { access, constants, stat } from "node:fs/promises";
import { join } from "node:path";
import type { LockedTool } from "../lockfile.js";

/** The completion marker: written last inside an install, so its presence means the install is whole. */
export const INSTALL_MARKER = ".toolmgr-install";

/** What is wrong with an install, or undefined when it is whole. */
export async function installProblem(
  dir: string,
  tool: Pick<LockedTool, "bin">,
): Promise<string | undefined> {
  if (!(await exists(dir))) return "not installed";
  if (!(await exists(join(dir, INSTALL_MARKER)))) return "damaged: its completion marker is missing";
  for (const bin of tool.bin) {
    try {
      await access(join(dir, bin), constants.X_OK);
    } catch {
      return `damaged: the executable "${bin}" is missing`;
    }
  }
  return undefined;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
