import { readFile } from "node:fs/promises";
import { type TarEntry, writeTar } from "./tar-writer.js";
import { writeZip, type ZipEntry } from "./zip-writer.js";

/** A fake tool: a shell script that prints its name, version and arguments. */
export function fakeTool(name: string, version: string): string {
  return `#!/bin/sh\necho "${name} ${version} $*"\n`;
}

/**
 * Builds an artifact of `kind` holding the executable `name` (inside `wrap/` when given, for strip_components).
 * tar.gz and zip are written in Node (tar-writer.ts, zip-writer.ts). Node has no bzip2 or xz encoder, so tar.bz2 and
 * tar.xz are read from `test/fixtures/archives/` (made by its make-fixtures.mjs), which has `hello` 1.0.0 and 2.0.0:
 * the suite runs with only Node.
 */
export async function buildArtifact(
  kind: "tar.gz" | "tar.bz2" | "tar.xz" | "zip" | "raw",
  options: { name: string; version: string; wrap?: string },
): Promise<Buffer> {
  const content = fakeTool(options.name, options.version);
  if (kind === "raw") return Buffer.from(content);
  const prefix = options.wrap ? `${options.wrap}/` : "";
  if (kind === "tar.gz") {
    return writeTar([
      ...(options.wrap ? [{ name: prefix, type: "directory" as const }] : []),
      { name: `${prefix}${options.name}`, content, mode: 0o755 },
      { name: `${prefix}README`, content: "docs\n", mode: 0o644 },
    ]);
  }
  if (kind === "zip") {
    return writeZip([
      { name: `${prefix}${options.name}`, content, unixMode: 0o100755 },
      { name: `${prefix}README`, content: "docs\n", unixMode: 0o100644 },
    ]);
  }
  const fixture = `${options.name}-${options.version}${options.wrap ? `-${options.wrap}` : ""}.${kind}`;
  return readFile(new URL(`../../../test/fixtures/archives/${fixture}`, import.meta.url)).catch(
    (error: Error) => {
      throw new Error(`No ${kind} fixture ${fixture}: add it to test/fixtures/archives/make-fixtures.mjs`, {
        cause: error,
      });
    },
  );
}

/** A tar.gz with one hostile entry after a good `tool` (written in Node: tar-writer.ts writes whatever it is told). */
export async function hostileTar(
  kind: "dotdot" | "absolute" | "symlink" | "hardlink" | "device" | "duplicate",
): Promise<Buffer> {
  const data = "#!/bin/sh\necho evil\n";
  const hostile: Record<typeof kind, TarEntry> = {
    dotdot: { name: "../../escaped", content: data },
    absolute: { name: "/tmp/toolmgr-absolute-escape", content: data },
    symlink: { name: "link", type: "symlink", linkname: "/etc/passwd" },
    hardlink: { name: "hard", type: "hardlink", linkname: "../../etc/passwd" },
    device: { name: "dev", type: "char" },
    duplicate: { name: "./tool", content: data, mode: 0o755 },
  };
  return writeTar([{ name: "tool", content: data, mode: 0o755 }, hostile[kind]]);
}

/** A zip with one hostile entry after a good `tool` (written in Node: zip-writer.ts writes whatever it is told). */
export async function hostileZip(kind: "dotdot" | "absolute" | "symlink" | "duplicate"): Promise<Buffer> {
  const hostile: Record<typeof kind, ZipEntry> = {
    dotdot: { name: "../../escaped", content: "evil" },
    absolute: { name: "/tmp/toolmgr-zip-absolute-escape", content: "evil" },
    symlink: { name: "link", content: "/etc/passwd", unixMode: 0o120777 },
    duplicate: { name: "TOOL", content: "#!/bin/sh\necho evil\n", unixMode: 0o100755 },
  };
  return writeZip([{ name: "tool", content: "#!/bin/sh\necho ok\n", unixMode: 0o100755 }, hostile[kind]]);
}
