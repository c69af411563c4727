import { SourceError } from "../errors.js";
import { isLoopbackHost } from "../loopback-host.js";
import {
  ARCHITECTURES,
  DEFAULT_SOURCE_PLATFORMS,
  OPERATING_SYSTEMS,
  type Platform,
  tryParsePlatform,
} from "../platform.js";
import { checkBinPath, checkChannelName, commandName } from "../safe-names.js";
import { constraintAllows, parseConstraint } from "../version/constraint.js";
import { PLACEHOLDERS, templatePlaceholders } from "./asset-template.js";

/** How a source finds versions and artifacts (spec: "Source types"). There is no third type. */
export type SourceType = "github_release" | "http";

/** One channel of a source: the artifact template used for its builds (named after the channel, not a version). */
export interface ChannelSource {
  /** Asset name template (`github_release`) or HTTPS URL template (`http`). */
  readonly template: string;
}

/**
 * A source definition after parsing and defaults: the same model for registry recipes and project-local tools
 * (spec: "Source definition"). Every field is filled in, so two definitions that differ only in spelled-out
 * defaults are equal and fingerprint alike.
 */
export interface Source {
  readonly type: SourceType;
  /** `<owner>/<name>`: the repository tags (and, for `github_release`, assets) come from. */
  readonly repo: string;
  /** Asset name template (`github_release`) or HTTPS URL template (`http`). */
  readonly template: string;
  /** Executables inside the artifact, relative paths; for a raw executable, the one name to install it under. */
  readonly bin: readonly string[];
  /** Text before the version in tags. @default "v" */
  readonly tagPrefix: string;
  /** Platforms the upstream publishes. @default the keys of `target`, else linux and darwin on amd64 and arm64 */
  readonly platforms: readonly Platform[];
  /** Wrapping directory levels dropped when unpacking. @default 0 */
  readonly stripComponents: number;
  /** Value of `{target}` per platform. */
  readonly target: Readonly<Partial<Record<Platform, string>>>;
  /** Renames of `{os}`. */
  readonly os: Readonly<Record<string, string>>;
  /** Renames of `{arch}`. */
  readonly arch: Readonly<Record<string, string>>;
  /** Channels by name (spec: `channels.<channel>.asset`). */
  readonly channels: Readonly<Record<string, ChannelSource>>;
  /**
   * Version-ranged overrides (`[[source.overrides]]`), for upstreams that renamed their assets; the first whose
   * `versions` match applies. Absent when there are none (so the fingerprint of older definitions is unchanged).
   */
  readonly overrides?: readonly SourceOverride[];
}

/** One `[[source.overrides]]` entry: the versions it covers and the source keys it replaces. */
export interface SourceOverride {
  /** Version prefixes (`1`, `1.2`, `1.2.3`) or exact pre-releases, in the constraint syntax of `toolmgr.toml`. */
  readonly versions: readonly string[];
  readonly template?: string;
  readonly bin?: readonly string[];
  readonly platforms?: readonly Platform[];
  readonly stripComponents?: number;
  readonly target?: Readonly<Partial<Record<Platform, string>>>;
  readonly os?: Readonly<Record<string, string>>;
  readonly arch?: Readonly<Record<string, string>>;
}

/** The keys an override may set, besides `versions` (the asset key is `asset` or `url` by source type). */
const OVERRIDE_KEYS = ["bin", "platforms", "strip_components", "target", "os", "arch"] as const;

/** Hosts of the code-hosting service: never allowed under type `http` (spec: "Source types", "Errors"). */
const CODE_HOSTING_HOST = /(^|\.)(github\.com|githubusercontent\.com|githubassets\.com|ghcr\.io)$/i;

const KNOWN_KEYS = new Set([
  "type",
  "repo",
  "asset",
  "url",
  "bin",
  "tag_prefix",
  "platforms",
  "strip_components",
  "target",
  "os",
  "arch",
  "channels",
  "overrides",
]);

/**
 * Parses a `[source]` table (of a recipe or of a project-local `[tools.<name>]`) into a `Source`, applying the
 * defaults. `where` names the table in error messages, for example `registry/foundry.toml [source]`.
 *
 * @throws {SourceError} naming the key that is wrong and what is expected
 */
export function parseSource(raw: unknown, where: string): Source {
  const table = expectTable(raw, where);
  for (const key of Object.keys(table)) {
    if (!KNOWN_KEYS.has(key)) throw new SourceError(`Cannot parse ${where}: unknown key "${key}"`);
  }
  const type = table.type;
  if (type !== "github_release" && type !== "http") {
    throw new SourceError(
      `Cannot parse ${where}: "type" must be "github_release" or "http", got ${show(type)}`,
    );
  }
  const repo = expectString(table.repo, `${where} "repo"`);
  // "." as the owner or the name is no repository: a URL would resolve it away (`/repos/./x/…` is `/repos/x/…`), so
  // the request would name another endpoint (nao1215/block internal/recipe/recipe_test.go, "./x", "a/..").
  if (
    !/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repo) ||
    repo.includes("..") ||
    repo.split("/").includes(".")
  ) {
    throw new SourceError(`Cannot parse ${where}: "repo" must look like "owner/name", got "${repo}"`);
  }
  const templateKey = type === "github_release" ? "asset" : "url";
  const otherKey = type === "github_release" ? "url" : "asset";
  if (table[otherKey] !== undefined) {
    throw new SourceError(
      `Cannot parse ${where}: "${otherKey}" is not a key of type "${type}"; use "${templateKey}"`,
    );
  }
  const template = expectString(table[templateKey], `${where} "${templateKey}"`);
  const target = parseTarget(table.target, where);
  const platforms = parsePlatforms(table.platforms, where) ?? defaultPlatforms(target);
  const source: Source = {
    type,
    repo,
    template,
    bin: parseBin(table.bin, where),
    tagPrefix: parseTagPrefix(table.tag_prefix, where),
    platforms,
    stripComponents: parseStripComponents(table.strip_components, where),
    target,
    os: parseRenames(table.os, OPERATING_SYSTEMS, `${where} "os"`),
    arch: parseRenames(table.arch, ARCHITECTURES, `${where} "arch"`),
    channels: parseChannels(table.channels, { where, type }),
  };
  checkTemplate(source, source.template, `${where} "${templateKey}"`);
  for (const [name, channel] of Object.entries(source.channels)) {
    checkTemplate(source, channel.template, `${where} channel "${name}"`);
  }
  const overrides = parseOverrides(table.overrides, { where, templateKey });
  if (overrides.length === 0) return source;
  const withOverrides: Source = { ...source, overrides };
  overrides.forEach((override, i) => {
    const merged = applyOverride(source, override);
    checkTemplate(merged, merged.template, `${where} overrides[${i}] "${templateKey}"`);
  });
  return withOverrides;
}

function parseOverrides(
  raw: unknown,
  context: { where: string; templateKey: "asset" | "url" },
): SourceOverride[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    throw new SourceError(
      `Cannot parse ${context.where}: "overrides" must be an array of tables ([[source.overrides]])`,
    );
  }
  return raw.map((entry, i) => {
    const where = `${context.where} overrides[${i}]`;
    const table = expectTable(entry, where);
    const known = new Set<string>(["versions", context.templateKey, ...OVERRIDE_KEYS]);
    for (const key of Object.keys(table)) {
      if (!known.has(key)) {
        throw new SourceError(
          `Cannot parse ${where}: unknown key "${key}" (an override sets "versions" and any of: ${[...known].filter((k) => k !== "versions").join(", ")})`,
        );
      }
    }
    const versions = parseOverrideVersions(table.versions, where);
    const target = table.target === undefined ? undefined : parseTarget(table.target, where);
    const platforms = parsePlatforms(table.platforms, where);
    return {
      versions,
      ...(table[context.templateKey] === undefined
        ? {}
        : { template: expectString(table[context.templateKey], `${where} "${context.templateKey}"`) }),
      ...(table.bin === undefined ? {} : { bin: parseBin(table.bin, where) }),
      ...(platforms === undefined ? {} : { platforms }),
      ...(table.strip_components === undefined
        ? {}
        : { stripComponents: parseStripComponents(table.strip_components, where) }),
      ...(target === undefined ? {} : { target }),
      ...(table.os === undefined ? {} : { os: parseRenames(table.os, OPERATING_SYSTEMS, `${where} "os"`) }),
      ...(table.arch === undefined
        ? {}
        : { arch: parseRenames(table.arch, ARCHITECTURES, `${where} "arch"`) }),
    };
  });
}

function parseOverrideVersions(raw: unknown, where: string): string[] {
  const list = typeof raw === "string" ? [raw] : raw;
  if (!Array.isArray(list) || list.length === 0 || list.some((v) => typeof v !== "string")) {
    throw new SourceError(
      `Cannot parse ${where}: "versions" must be a version prefix or a list of them, e.g. "1.2" or ["0", "1"]`,
    );
  }
  for (const text of list as string[]) {
    let kind: string;
    try {
      kind = parseConstraint(text, where).kind;
    } catch {
      kind = "invalid";
    }
    if (kind !== "prefix" && kind !== "prerelease") {
      throw new SourceError(
        `Cannot parse ${where}: "versions" entry "${text}" is not a version prefix; write 1, 1.2, 1.2.3 or 1.2.3-rc.1 (list several for a range, e.g. ["1", "2.0"])`,
      );
    }
  }
  return list as string[];
}

/** Whether an override's `versions` cover `version` (whole components, as constraints match). */
export function overrideMatches(override: SourceOverride, version: string): boolean {
  return override.versions.some((text) => constraintAllows(parseConstraint(text, "override"), version));
}

function applyOverride(source: Source, override: SourceOverride): Source {
  const { overrides: _, ...base } = source;
  return {
    ...base,
    ...(override.template === undefined ? {} : { template: override.template }),
    ...(override.bin === undefined ? {} : { bin: override.bin }),
    ...(override.platforms === undefined ? {} : { platforms: override.platforms }),
    ...(override.stripComponents === undefined ? {} : { stripComponents: override.stripComponents }),
    ...(override.target === undefined ? {} : { target: override.target }),
    ...(override.os === undefined ? {} : { os: override.os }),
    ...(override.arch === undefined ? {} : { arch: override.arch }),
  };
}

/**
 * The source as it applies to `version`: the first override whose `versions` match, merged over the base keys (a
 * recipe describes the current asset names and carries the old ones as overrides, aqua's `version_overrides`).
 */
export function sourceAt(source: Source, version: string): Source {
  const override = source.overrides?.find((o) => overrideMatches(o, version));
  return override === undefined ? source : applyOverride(source, override);
}

function checkTemplate(source: Source, template: string, where: string): void {
  for (const name of templatePlaceholders(template)) {
    if (!(PLACEHOLDERS as readonly string[]).includes(name)) {
      throw new SourceError(
        `Cannot parse ${where}: unknown placeholder {${name}} (known: {${PLACEHOLDERS.join("}, {")}})`,
      );
    }
    if (name === "target") {
      const missing = source.platforms.filter((p) => source.target[p] === undefined);
      if (missing.length > 0) {
        throw new SourceError(
          `Cannot parse ${where}: {target} is used but not defined for ${missing.join(", ")}`,
        );
      }
    }
  }
  if (source.type === "github_release" && template.includes("/")) {
    // A release asset is one file name; a "/" could never match one (nao1215/block recipe_test.go, "asset path").
    throw new SourceError(
      `Cannot parse ${where}: "${template}" is not a file name; a release asset is named without "/"`,
    );
  }
  if (source.type === "http" && !/\{(?:version|commit)\}/.test(template)) {
    // Spec "Resolution rules, channel" 4: never record a URL whose contents can change. A URL that names no release
    // serves each new one in turn (nao1215/block recipe_test.go, "http no version": "must contain {version}").
    throw new SourceError(
      `Cannot parse ${where}: "${template}" names no release; an http URL must contain {version} (or {commit}), or its contents change with every release and the locked sha256 stops matching`,
    );
  }
  if (source.type === "http") {
    let url: URL;
    try {
      url = new URL(template.replace(/\{[a-z]+\}/g, "x"));
    } catch (cause) {
      throw new SourceError(`Cannot parse ${where}: "${template}" is not a URL`, { cause });
    }
    // As for downloads of any source: plain http only to a loopback address (tests, a local mirror).
    if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopbackHost(url.hostname)))
      throw new SourceError(
        `Cannot parse ${where}: an http source must use https:// (http:// only for a loopback address)`,
      );
    if (CODE_HOSTING_HOST.test(url.hostname)) {
      throw new SourceError(
        `Cannot parse ${where}: "${url.hostname}" is a code-hosting host; use type "github_release" for release assets`,
      );
    }
  }
}

function defaultPlatforms(target: Source["target"]): readonly Platform[] {
  const keys = Object.keys(target) as Platform[];
  return keys.length > 0 ? keys.sort() : DEFAULT_SOURCE_PLATFORMS;
}

function parsePlatforms(raw: unknown, where: string): readonly Platform[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw))
    throw new SourceError(`Cannot parse ${where}: "platforms" must be an array of strings`);
  if (raw.length === 0) return undefined;
  const platforms = raw.map((p) => {
    const platform = typeof p === "string" ? tryParsePlatform(p) : undefined;
    if (platform === undefined)
      throw new SourceError(`Cannot parse ${where}: unknown platform ${show(p)} in "platforms"`);
    return platform;
  });
  if (new Set(platforms).size !== platforms.length) {
    throw new SourceError(`Cannot parse ${where}: "platforms" lists a platform twice`);
  }
  return platforms;
}

function parseTarget(raw: unknown, where: string): Source["target"] {
  if (raw === undefined) return {};
  const table = expectTable(raw, `${where} "target"`);
  const target: Partial<Record<Platform, string>> = {};
  for (const [key, value] of Object.entries(table)) {
    const platform = tryParsePlatform(key);
    if (platform === undefined)
      throw new SourceError(`Cannot parse ${where} "target": unknown platform "${key}"`);
    target[platform] = expectString(value, `${where} "target.${key}"`);
  }
  return target;
}

function parseRenames(raw: unknown, known: readonly string[], where: string): Record<string, string> {
  if (raw === undefined) return {};
  const table = expectTable(raw, where);
  const renames: Record<string, string> = {};
  for (const [key, value] of Object.entries(table)) {
    if (!known.includes(key))
      throw new SourceError(`Cannot parse ${where}: unknown key "${key}" (known: ${known.join(", ")})`);
    renames[key] = expectString(value, `${where}.${key}`);
  }
  return renames;
}

function parseBin(raw: unknown, where: string): readonly string[] {
  if (!Array.isArray(raw) || raw.length === 0) {
    throw new SourceError(`Cannot parse ${where}: "bin" must be a non-empty array of executable paths`);
  }
  const bin = raw.map((b) => expectString(b, `${where} "bin"`));
  for (const path of bin) checkBinPath(path, where);
  if (new Set(bin.map(commandName)).size !== bin.length) {
    throw new SourceError(`Cannot parse ${where}: "bin" names the same command twice`);
  }
  return bin;
}

function parseStripComponents(raw: unknown, where: string): number {
  if (raw === undefined) return 0;
  if (typeof raw === "bigint" && raw >= 0n && raw <= 16n) return Number(raw);
  if (typeof raw !== "number" || !Number.isInteger(raw) || raw < 0 || raw > 16) {
    throw new SourceError(`Cannot parse ${where}: "strip_components" must be an integer from 0 to 16`);
  }
  return raw;
}

function parseChannels(
  raw: unknown,
  options: { where: string; type: SourceType },
): Record<string, ChannelSource> {
  if (raw === undefined) return {};
  const key = options.type === "github_release" ? "asset" : "url";
  const table = expectTable(raw, `${options.where} "channels"`);
  const channels: Record<string, ChannelSource> = {};
  for (const [name, value] of Object.entries(table)) {
    checkChannelName(name, options.where);
    const entry = expectTable(value, `${options.where} "channels.${name}"`);
    for (const k of Object.keys(entry)) {
      if (k !== key)
        throw new SourceError(`Cannot parse ${options.where} "channels.${name}": unknown key "${k}"`);
    }
    channels[name] = { template: expectString(entry[key], `${options.where} "channels.${name}.${key}"`) };
  }
  return channels;
}

function expectTable(raw: unknown, where: string): Record<string, unknown> {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw) || raw instanceof Date) {
    throw new SourceError(`Cannot parse ${where}: expected a table, got ${show(raw)}`);
  }
  return raw as Record<string, unknown>;
}

function expectString(raw: unknown, where: string): string {
  if (typeof raw !== "string" || raw.length === 0) {
    throw new SourceError(`Cannot parse ${where}: expected a non-empty string, got ${show(raw)}`);
  }
  return raw;
}

function parseTagPrefix(raw: unknown, where: string): string {
  if (raw === undefined) return "v";
  // An empty prefix is meaningful: tags spelled "1.2.3" with no leading text.
  if (typeof raw !== "string" || /[\s\\]/.test(raw) || raw.includes("..")) {
    throw new SourceError(
      `Cannot parse ${where}: "tag_prefix" must be a string without spaces, "\\" or ".."`,
    );
  }
  return raw;
}

function show(value: unknown): string {
  if (value === undefined) return "nothing";
  if (typeof value === "string") return `"${value}"`;
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object" && value !== null) return "a table";
  return String(value);
}
