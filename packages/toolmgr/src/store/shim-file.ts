import { open } from "node:fs/promises";
import { SHIM_MARKER } from "./shims.js";

/** Whether the file at `path` is a toolmgr POSIX shim (its second line starts with `SHIM_MARKER`). */
export async function isShimFile(path: string): Promise<boolean> {
  const file = await open(path, "r").catch(() => undefined);
  if (file === undefined) return false;
  try {
    const buffer = Buffer.alloc(256);
    const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
    const lines = buffer.subarray(0, bytesRead).toString("latin1").split("\n");
    return lines[1]?.startsWith(SHIM_MARKER) === true;
  } finally {
    await file.close();
  }
}
