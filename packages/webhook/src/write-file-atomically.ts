import { randomBytes } from "node:crypto";
import { open, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * Writes `data` to `path` (mode 0600) so that a reader sees the old file or the whole new one, never an empty or
 * half-written file: a temporary file in the same directory, then a rename over `path` (what systemd's `PIDFile=`
 * and a script polling the file need). Where no new file may be made in the directory but `path` itself is
 * writable (a pid file set up by an administrator in a directory of root's), it is written in place, as before.
 * Errors carry `path` and the `open` operation, so they read as Go's `os.WriteFile` errors upstream prints.
 */
export async function writeFileAtomically(path: string, data: string): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    const handle = await open(temporary, "wx", 0o600);
    try {
      await handle.writeFile(data);
    } finally {
      await handle.close();
    }
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EACCES" || code === "EPERM" || code === "EROFS") return writeInPlace(path, data);
    throw asOpenError(error, path);
  }
  try {
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    // A directory there (`-pidfile .`) refuses the rename with EBUSY or ENOTEMPTY; Go's open says what it is.
    const directory = await stat(path).then(
      (s) => s.isDirectory(),
      () => false,
    );
    throw asOpenError(directory ? Object.assign(error as object, { code: "EISDIR" }) : error, path);
  }
}

async function writeInPlace(path: string, data: string): Promise<void> {
  try {
    const handle = await open(path, "w", 0o600);
    try {
      await handle.writeFile(data);
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw asOpenError(error, path);
  }
}

function asOpenError(error: unknown, path: string): unknown {
  if (typeof error !== "object" || error === null || !("code" in error)) return error;
  return Object.assign(error, { syscall: "open", path });
}
