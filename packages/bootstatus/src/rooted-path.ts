import type { Stats } from "node:fs";
import { lstatSync, readlinkSync } from "node:fs";
import path from "node:path";

// Linux follows at most 40 symlinks per lookup (path_resolution(7)); so do we.
const MAX_LINKS = 40;

/**
 * Maps an absolute path of the inspected system to a host path under `root`, resolving symlinks inside the
 * root like a chroot would: cloud-init's /run/cloud-init/status.json is an absolute symlink to
 * /var/lib/cloud/data/status.json, which must resolve under `root`, never on the host. `..` never leaves root.
 */
export function rootedPath(
  root: string,
  systemPath: string,
  /** lstat answers already had in this read of the tree (one readBootState): shared prefixes are asked once. */
  seen?: Map<string, Stats | undefined>,
): string {
  if (root === "/" || root === "") return path.resolve("/", systemPath);
  const pending = path.resolve("/", systemPath).split("/").filter(Boolean);
  const done: string[] = [];
  let links = 0;
  while (pending.length > 0) {
    const part = pending.shift() ?? "";
    if (part === ".") continue;
    if (part === "..") {
      done.pop();
      continue;
    }
    const host = path.join(root, ...done, part);
    let target: string | undefined;
    try {
      // No exception for a missing path (most of the files looked for are): building one costs more than the lstat.
      let stats = seen?.get(host);
      if (stats === undefined && seen?.has(host) !== true) {
        stats = lstatSync(host, { throwIfNoEntry: false });
        seen?.set(host, stats);
      }
      // A missing component: the rest cannot be symlinks either; the caller sees ENOENT.
      if (stats === undefined) return path.join(root, ...done, part, ...pending);
      if (stats.isSymbolicLink()) target = readlinkSync(host);
    } catch {
      return path.join(root, ...done, part, ...pending);
    }
    if (target === undefined) {
      done.push(part);
      continue;
    }
    if (++links > MAX_LINKS) return host;
    if (target.startsWith("/")) done.length = 0;
    pending.unshift(...target.split("/").filter(Boolean));
  }
  return path.join(root, ...done);
}
