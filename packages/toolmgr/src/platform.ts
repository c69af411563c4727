import { ToolmgrError } from "./errors.js";
/** Operating systems toolmgr knows, spelled as Go's GOOS (the spec's platform strings). */
export const OPERATING_SYSTEMS = ["linux", "darwin", "windows"] as const;
export type Os = (typeof OPERATING_SYSTEMS)[number];

/** Architectures toolmgr knows, spelled as Go's GOARCH. */
export const ARCHITECTURES = ["amd64", "arm64"] as const;
export type Arch = (typeof ARCHITECTURES)[number];

/** The supported set of platform strings (spec: `toolmgr.toml`, `platforms`). */
export const SUPPORTED_PLATFORMS = [
  "linux/amd64",
  "linux/arm64",
  "darwin/amd64",
  "darwin/arm64",
  "windows/amd64",
  "windows/arm64",
] as const;
export type Platform = (typeof SUPPORTED_PLATFORMS)[number];

/** Platforms a source covers when it lists none and has no `target` table (the peer's default). */
export const DEFAULT_SOURCE_PLATFORMS: readonly Platform[] = [
  "linux/amd64",
  "linux/arm64",
  "darwin/amd64",
  "darwin/arm64",
];

/** Returns the value as a `Platform` when it is one of the supported strings. */
export function tryParsePlatform(text: string): Platform | undefined {
  return (SUPPORTED_PLATFORMS as readonly string[]).includes(text) ? (text as Platform) : undefined;
}

/** Parses a platform string, throwing a `TypeError` that lists the supported set. */
export function parsePlatform(text: string): Platform {
  const platform = tryParsePlatform(text);
  if (platform === undefined) {
    throw new TypeError(`Unknown platform "${text}": expected one of ${SUPPORTED_PLATFORMS.join(", ")}`);
  }
  return platform;
}

/** The OS half of a platform. */
export function platformOs(platform: Platform): Os {
  return platform.slice(0, platform.indexOf("/")) as Os;
}

/** The architecture half of a platform. */
export function platformArch(platform: Platform): Arch {
  return platform.slice(platform.indexOf("/") + 1) as Arch;
}

/**
 * The platform of a running Node.js process, from `process.platform` and `process.arch` values passed in.
 * Returns `undefined` on a system toolmgr has no artifacts for.
 */
export function detectPlatform(runtime: { platform: string; arch: string }): Platform | undefined {
  const os = ({ linux: "linux", darwin: "darwin", win32: "windows" } as Record<string, Os>)[runtime.platform];
  const arch = ({ x64: "amd64", arm64: "arm64" } as Record<string, Arch>)[runtime.arch];
  return os && arch ? (`${os}/${arch}` as Platform) : undefined;
}

/**
 * {@link detectPlatform}, for a command that cannot go on without one.
 *
 * @throws {ToolmgrError} `TOOLMGR_PLATFORM`: `Cannot <doing> on <os>/<arch>: not a supported platform`
 */
export function requirePlatform(runtime: { platform: string; arch: string }, doing: string): Platform {
  const platform = detectPlatform(runtime);
  if (platform === undefined) {
    throw new ToolmgrError(
      "TOOLMGR_PLATFORM",
      `Cannot ${doing} on ${runtime.platform}/${runtime.arch}: not a supported platform`,
    );
  }
  return platform;
}
