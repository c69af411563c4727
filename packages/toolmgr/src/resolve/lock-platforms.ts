import { ToolmgrError } from "../errors.js";
import type { Lockfile } from "../lockfile.js";
import { detectPlatform, type Platform } from "../platform.js";

/**
 * The platforms `lock` resolves for: the project's `platforms` list; without one, what the existing lock already
 * covers plus this machine's, so re-locking on a laptop never drops the artifact CI needs.
 */
export function lockPlatforms(
  declared: readonly Platform[] | undefined,
  context: { existing: Lockfile | undefined; runtime: { platform: string; arch: string } },
): Platform[] {
  if (declared !== undefined) return [...declared];
  const running = detectPlatform(context.runtime);
  const platforms = [
    ...new Set([
      ...(context.existing?.tools.flatMap((t) => t.artifacts.map((a) => a.platform)) ?? []),
      ...(running ? [running] : []),
    ]),
  ].sort();
  if (platforms.length === 0) {
    throw new ToolmgrError(
      "TOOLMGR_PLATFORM",
      `Cannot lock for this machine (${context.runtime.platform}/${context.runtime.arch}): it is not a supported platform; list platforms in toolmgr.toml`,
    );
  }
  return platforms;
}
