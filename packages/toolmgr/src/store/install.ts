import { chmod, mkdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { archiveKind } from "../archive-kind.js";
import { isStoreFull, NotInstalledError, storeFullError } from "../errors.js";
import type { LockedArtifact, LockedTool } from "../lockfile.js";
import { tempPath } from "../replace-file.js";
import { extractArchive } from "./extract.js";
import { freeBytes, treeBytes } from "./free-space.js";
import { INSTALL_MARKER, installProblem } from "./install-problem.js";
import { installDir, type StoreLayout } from "./layout.js";
import { installTempPrefix, sweepInstalls } from "./leftovers.js";

/**
 * Installs an artifact already verified in the cache at `tools/<name>/<version>-<digest12>/`, atomically: unpack into
 * a temporary directory inside the store, confirm every declared executable is there, write the completion marker,
 * then rename. If another process installed it meanwhile, keep theirs. An install without its marker or missing an
 * executable is replaced.
 *
 * @returns `"installed"` or `"present"`
 */
export async function installArtifact(
  cachedPath: string,
  options: { layout: StoreLayout; tool: LockedTool; artifact: LockedArtifact; now: () => Date },
): Promise<"installed" | "present"> {
  const { tool, artifact } = options;
  const target = installDir(options.layout, {
    name: tool.name,
    version: tool.version,
    sha256: artifact.sha256,
  });
  if ((await installProblem(target, tool)) === undefined) return "present";
  await mkdir(dirname(target), { recursive: true });
  await sweepInstalls(dirname(target), options.now().getTime());
  const temp = tempPath(dirname(target), installTempPrefix(target));
  await mkdir(temp);
  try {
    const [rawName = tool.name] = tool.bin;
    await extractArchive(cachedPath, temp, {
      kind: archiveKind(artifact.url),
      stripComponents: tool.stripComponents,
      rawName,
      label: `"${tool.name}" ${tool.version} (${artifact.url})`,
    });
    for (const bin of tool.bin) {
      const path = join(temp, bin);
      if (
        !(await stat(path).then(
          (s) => s.isFile(),
          () => false,
        ))
      ) {
        throw new NotInstalledError(
          `Cannot install "${tool.name}" ${tool.version}: the artifact has no executable "${bin}"; the lock's bin list does not match the artifact`,
        );
      }
      // Archives built on Windows carry no Unix modes: the declared executables are made executable.
      await chmod(path, 0o755);
    }
    await writeFile(
      join(temp, INSTALL_MARKER),
      `${JSON.stringify({ name: tool.name, version: tool.version, sha256: artifact.sha256, bin: tool.bin })}\n`,
    );
    try {
      await rename(temp, target);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOTEMPTY" && code !== "EEXIST" && code !== "EPERM") throw error;
      // Someone else got there first: keep a whole install of theirs, replace a damaged one.
      if ((await installProblem(target, tool)) === undefined) return "present";
      await rm(target, { recursive: true, force: true });
      await rename(temp, target);
    }
    return "installed";
  } catch (error) {
    // A full or read-only store is named with the room the unpacking took before it ran out (issue: it surfaced as
    // an "unexpected error: ENOSPC" with a stack).
    if (!isStoreFull(error)) throw error;
    const [archive, unpacked, free] = await Promise.all([
      stat(cachedPath).then(
        (s) => s.size,
        () => undefined,
      ),
      treeBytes(temp),
      freeBytes(dirname(target)),
    ]);
    throw storeFullError(error, {
      doing: `unpack "${tool.name}" ${tool.version} into the store`,
      dir: dirname(target),
      needed: `it had unpacked ${unpacked ?? "?"} bytes of the ${archive ?? "?"}-byte archive when the room ran out, and needs more`,
      free,
    });
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}
