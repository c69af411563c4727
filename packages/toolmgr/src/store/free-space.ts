import { lstat, readdir, statfs } from "node:fs/promises";
import { join } from "node:path";

/** Bytes this user may still write on the file system of `dir`, or undefined when it cannot be told. */
export async function freeBytes(dir: string): Promise<number | undefined> {
  return statfs(dir).then(
    (s) => s.bavail * s.bsize,
    () => undefined,
  );
}

/** Bytes of the files under `dir` (what an interrupted unpacking had written), or undefined when unreadable. */
export async function treeBytes(dir: string): Promise<number | undefined> {
  try {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    const sizes = await Promise.all(
      entries
        .filter((e) => e.isFile())
        .map((e) => lstat(join(e.parentPath ?? e.path, e.name)).then((s) => s.size)),
    );
    return sizes.reduce((a, b) => a + b, 0);
  } catch {
    return undefined;
  }
}
