import { statSync } from "node:fs";
import { dirname, join } from "node:path";
import { notRegularText } from "../bounded-read.js";
import { ProjectFileError } from "../errors.js";

// Finding the project file, apart from parsing it (project-file.ts, with the TOML parser): `exec` and `which` on
// a recorded project never parse it (recorded-answers.ts). Synchronous `stat`s: a walk up a few directories costs
// microseconds that way, where a promise round trip through the thread pool per directory costs far more in a
// command whose whole budget is Node's own start-up (bench/toolmgr/README.md, "Hot paths").

/** File name of the project file. */
export const PROJECT_FILE_NAME = "toolmgr.toml";

/** Whether a file exists (and is a file). */
export async function isFile(path: string): Promise<boolean> {
  return statSync(path, { throwIfNoEntry: false })?.isFile() === true;
}

/**
 * The nearest `toolmgr.toml` in `dir` or an ancestor, or undefined. Finding and parsing stay separate (aqua).
 *
 * @throws {ProjectFileError} when the nearest one is not a regular file (a FIFO, a directory, ...), as the shim says
 */
export async function findProjectFile(dir: string): Promise<string | undefined> {
  for (let current = dir; ; current = dirname(current)) {
    const candidate = join(current, PROJECT_FILE_NAME);
    const found = statOrUndefined(candidate);
    if (found?.isFile() === true) return candidate;
    if (found !== undefined) throw new ProjectFileError(notRegularText(candidate, found));
    if (dirname(current) === current) return undefined;
  }
}

function statOrUndefined(path: string) {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined; // EACCES, ENOTDIR: nothing usable here, as a missing file
  }
}
