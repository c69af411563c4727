import { chmod, cp, mkdir, readdir, readFile, realpath, stat } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE_DIR = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * Copies the built server (launcher, compiled `dist/src`, manifest) and every runtime dependency it imports into
 * `dest`, readable and traversable by every user, and returns the copied launcher. The privilege tests start the
 * server as `nobody`, who cannot read a checkout under a 0700 directory (root's home, CI's `mktemp -d`).
 * Dependencies land in `dest/node_modules`, so Node resolves them from the copy alone.
 */
export async function copyServerReadable(dest: string): Promise<string> {
  const app = join(dest, "webhook");
  await mkdir(app, { recursive: true });
  await cp(join(PACKAGE_DIR, "bin"), join(app, "bin"), { recursive: true });
  await cp(join(PACKAGE_DIR, "dist", "src"), join(app, "dist", "src"), { recursive: true });
  await cp(join(PACKAGE_DIR, "package.json"), join(app, "package.json"));
  const seen = new Set<string>();
  const queue: Array<{ name: string; from: string }> = (await dependencyNames(PACKAGE_DIR)).map((name) => ({
    name,
    from: PACKAGE_DIR,
  }));
  while (queue.length > 0) {
    const next = queue.shift();
    if (next === undefined || seen.has(next.name)) continue;
    seen.add(next.name);
    const source = await resolvePackageDir(next.name, next.from);
    await cp(source, join(dest, "node_modules", next.name), {
      recursive: true,
      dereference: true,
      filter: (path) => keep(relative(source, path)),
    });
    for (const name of await dependencyNames(source)) queue.push({ name, from: source });
  }
  await openUp(dest);
  return join(app, "bin", "webhook.js");
}

/** The `dependencies` of the package whose directory is `dir`. */
async function dependencyNames(dir: string): Promise<string[]> {
  const manifest = JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
  };
  return Object.keys(manifest.dependencies ?? {});
}

/** Node's lookup: the first `node_modules/<name>` walking up from `from`, links followed (workspace packages). */
async function resolvePackageDir(name: string, from: string): Promise<string> {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    try {
      if ((await stat(join(candidate, "package.json"))).isFile()) return await realpath(candidate);
    } catch {
      // not here: one level up
    }
    if (dirname(dir) === dir) throw new Error(`dependency ${name} not found from ${from}`);
  }
}

/**
 * What a running server never loads: nested `node_modules` (copied as packages of their own), TypeScript sources of
 * workspace packages, and koffi's prebuilt libraries for other platforms (74 MB of its 84).
 */
function keep(path: string): boolean {
  const parts = path.split(sep);
  if (parts[0] === "node_modules") return false;
  if (parts.length >= 3 && parts[0] === "build" && parts[1] === "koffi") {
    return parts[2] === `${process.platform}_${process.arch}`;
  }
  return !path.endsWith(".ts") || path.endsWith(".d.ts");
}

/** Every directory 0755 and file 0644 (executables 0755), whatever the umask of the copying user. */
async function openUp(dir: string): Promise<void> {
  await chmod(dir, 0o755);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await openUp(path);
    else if (entry.isFile()) await chmod(path, (await stat(path)).mode & 0o111 ? 0o755 : 0o644);
  }
}
