import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A fake tool: a shell script that prints its name, version and arguments. */
export function fakeTool(name: string, version: string): string {
  return `#!/bin/sh\necho "${name} ${version} $*"\n`;
}

/**
 * Builds an artifact of `kind` holding the executable `name` (inside `wrap/` when given, for strip_components).
 * Uses the system's tar, bzip2, xz and zip, as upstream release pipelines do.
 */
export async function buildArtifact(
  kind: "tar.gz" | "tar.bz2" | "tar.xz" | "zip" | "raw",
  options: { name: string; version: string; wrap?: string },
): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), "toolmgr-artifact-"));
  const content = fakeTool(options.name, options.version);
  if (kind === "raw") return Buffer.from(content);
  const root = join(dir, "root");
  const inner = options.wrap ? join(root, options.wrap) : root;
  await mkdir(inner, { recursive: true });
  await writeFile(join(inner, options.name), content, { mode: 0o755 });
  await writeFile(join(inner, "README"), "docs\n", { mode: 0o644 });
  const out = join(dir, `out.${kind}`);
  if (kind === "zip") execFileSync("zip", ["-qr", out, "."], { cwd: root });
  else {
    const flag = kind === "tar.gz" ? "-czf" : kind === "tar.bz2" ? "-cjf" : "-cJf";
    execFileSync("tar", [flag, out, "."], { cwd: root });
  }
  return readFile(out);
}

/** A tar.gz with one hostile entry, built with Python's tarfile (which writes whatever it is told). */
export async function hostileTar(
  kind: "dotdot" | "absolute" | "symlink" | "hardlink" | "device" | "duplicate",
): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), "toolmgr-hostile-"));
  const out = join(dir, "hostile.tar.gz");
  const script = `
import io, tarfile, sys
kind, out = sys.argv[1], sys.argv[2]
with tarfile.open(out, "w:gz") as t:
    data = b"#!/bin/sh\\necho evil\\n"
    ok = tarfile.TarInfo("tool"); ok.size = len(data); ok.mode = 0o755; t.addfile(ok, io.BytesIO(data))
    if kind == "dotdot":
        e = tarfile.TarInfo("../../escaped"); e.size = len(data); t.addfile(e, io.BytesIO(data))
    elif kind == "absolute":
        e = tarfile.TarInfo("/tmp/toolmgr-absolute-escape"); e.size = len(data); t.addfile(e, io.BytesIO(data))
    elif kind == "symlink":
        e = tarfile.TarInfo("link"); e.type = tarfile.SYMTYPE; e.linkname = "/etc/passwd"; t.addfile(e)
    elif kind == "hardlink":
        e = tarfile.TarInfo("hard"); e.type = tarfile.LNKTYPE; e.linkname = "../../etc/passwd"; t.addfile(e)
    elif kind == "device":
        e = tarfile.TarInfo("dev"); e.type = tarfile.CHRTYPE; e.devmajor = 1; e.devminor = 3; t.addfile(e)
    elif kind == "duplicate":
        e = tarfile.TarInfo("./tool"); e.size = len(data); e.mode = 0o755; t.addfile(e, io.BytesIO(data))
`;
  execFileSync("python3", ["-c", script, kind, out]);
  return readFile(out);
}

/** A zip with one hostile entry, built with Python's zipfile (which writes whatever name and mode it is told). */
export async function hostileZip(kind: "dotdot" | "absolute" | "symlink" | "duplicate"): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), "toolmgr-hostile-"));
  const out = join(dir, "hostile.zip");
  const script = `
import zipfile, sys
kind, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(out, "w") as z:
    ok = zipfile.ZipInfo("tool"); ok.external_attr = (0o100755 << 16); z.writestr(ok, "#!/bin/sh\\necho ok\\n")
    if kind == "dotdot":
        z.writestr(zipfile.ZipInfo("../../escaped"), "evil")
    elif kind == "absolute":
        z.writestr(zipfile.ZipInfo("/tmp/toolmgr-zip-absolute-escape"), "evil")
    elif kind == "symlink":
        e = zipfile.ZipInfo("link"); e.external_attr = (0o120777 << 16); z.writestr(e, "/etc/passwd")
    elif kind == "duplicate":
        e = zipfile.ZipInfo("TOOL"); e.external_attr = (0o100755 << 16); z.writestr(e, "#!/bin/sh\\necho evil\\n")
`;
  execFileSync("python3", ["-c", script, kind, out]);
  return readFile(out);
}
