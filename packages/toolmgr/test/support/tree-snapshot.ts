import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";

/** Every file and directory below `dir` with what would change if it were written: inode, size, mtime. */
export async function treeSnapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath ?? entry.path, entry.name);
    const s = await stat(path);
    out.set(path, `${s.ino} ${s.size} ${s.mtimeMs}`);
  }
  return out;
}
