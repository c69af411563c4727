import { archiveKind } from "../archive-kind.js";
import { ResolveError } from "../errors.js";
import { hideCredentials } from "../hide-credentials.js";
import { unlockableUrl } from "../lockfile.js";
import type { Platform } from "../platform.js";
import type { ProjectTool } from "../project/project-file.js";

/**
 * Refuses an artifact `lock` must not record, before anything is downloaded: a URL the lock could not be read back
 * with (lockfile.ts: a relative or plain-http URL fails every later command), a URL holding credentials (a lock is
 * committed and shared; a token never reaches a lock file), or a raw executable with options it cannot honour.
 */
export function checkLockableArtifact(
  tool: ProjectTool,
  artifact: { platform: Platform; name: string; release: string; url: string; apiUrl?: string | undefined },
): void {
  const { platform, name, release } = artifact;
  for (const [key, value] of [
    ["download URL", artifact.url],
    ["API URL", artifact.apiUrl],
  ] as const) {
    const wrong = value === undefined ? undefined : unlockableUrl(value, { forWriting: true });
    if (wrong !== undefined)
      throw new ResolveError(
        `Cannot lock "${tool.name}" for ${platform}: the ${key} of "${hideCredentials(name)}" in ${release} is "${hideCredentials(value ?? "")}", ${wrong}; a lock records only https URLs without credentials (plain http only to a loopback address)`,
      );
  }
  checkRawExecutable(tool, artifact);
}

/**
 * A raw executable (an artifact that is no archive) is installed under its one `bin` name, and has no directories to
 * strip: a second executable or a `strip_components` could never be honoured, so `lock` refuses them rather than
 * write a lock that `sync` cannot install (nao1215/block internal/recipe/recipe_test.go, "raw two bins", "raw
 * strip"). Checked per platform, as one recipe may ship archives on some platforms and a bare `.exe` on others.
 */
function checkRawExecutable(tool: ProjectTool, artifact: { platform: Platform; url: string }): void {
  const { bin, stripComponents } = tool.source;
  if (archiveKind(artifact.url) !== "raw" || (bin.length === 1 && stripComponents === 0)) return;
  const name = artifact.url.slice(artifact.url.lastIndexOf("/") + 1);
  const wrong =
    bin.length !== 1
      ? `it lists ${bin.length} executables in "bin" (${bin.map((b) => `"${b}"`).join(", ")}), and a raw executable is installed under exactly one name`
      : `"strip_components" is ${stripComponents}, and a raw executable has no directories to strip`;
  throw new ResolveError(
    `Cannot lock "${tool.name}" for ${artifact.platform}: its artifact "${name}" is a single executable, not an archive (.tar.gz, .tar.bz2, .tar.xz, .tar or .zip), but ${wrong}; fix the source`,
  );
}
