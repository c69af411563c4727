import { mapConcurrent } from "../concurrency.js";
import { ResolveError, SourceError, UnsupportedPlatformError } from "../errors.js";
import type { CodeHost, Release } from "../http/code-host.js";
import type { LockedArtifact, LockedTool } from "../lockfile.js";
import type { Platform } from "../platform.js";
import type { ProjectTool } from "../project/project-file.js";
import { renderTemplate, templateHost, templatePlaceholders } from "../source/asset-template.js";
import { sourceAt } from "../source/source.js";
import { matchesPrefix, newestFirst, parseStableTag } from "../version/constraint.js";
import {
  admitChannelBuild,
  admitExact,
  type Cooldown,
  type CooldownNote,
  everyReleaseYoung,
  judge,
  refuseUndatedSources,
} from "./cooldown.js";
import { checkLockableArtifact } from "./lockable-artifact.js";
import { reusedDigest } from "./relock.js";

/** Everything resolution needs from outside: the code host, the policy, and a way to digest an artifact (TOFU). */
export interface ResolveContext {
  readonly codeHost: CodeHost;
  /** Platforms to record artifacts for. */
  readonly platforms: readonly Platform[];
  /** The tool's entry in the existing lock: its digests are reused when the URL is unchanged (relock.ts). */
  readonly previous?: LockedTool | undefined;
  /** Re-resolve at exactly this pinned version instead of the newest match (a kept pin gaining platforms). */
  readonly pin?: string | undefined;
  /** Downloads an artifact once and returns its digest (trust on first use, checksum rule 2). */
  readonly digest: (artifact: {
    readonly url: string;
    readonly apiUrl?: string | undefined;
  }) => Promise<string>;
  /**
   * Whether to ask the host if a `github_release` repository is private. Without a token every repository the API
   * answers for is public (a private one would answer 404), so the request is saved.
   */
  readonly checkPrivacy: boolean;
  /** Whether an `http` source may download from `host` for `repo` (the registry's host policy). */
  readonly allowHost: (options: { readonly host: string; readonly repo: string }) => boolean;
  /** The release cooldown this tool is resolved under (`min_release_age`), when one applies. */
  readonly cooldown?: Cooldown | undefined;
  /** Told what the cooldown held back, or which young pin it kept. */
  readonly onNote?: (note: CooldownNote) => void;
}

interface Chosen {
  /** The version recorded in the lock (without tag prefix; for channels the `<channel>-<commit>` tag). */
  readonly version: string;
  readonly tag: string;
  /** The release, for `github_release` sources. */
  readonly release?: Release;
  /** The first 8 hex digits of the commit, when the template needs `{commit}`. */
  readonly commit?: string;
  readonly template: string;
  /** What the cooldown held back, then the young pin it kept. */
  readonly notes?: readonly CooldownNote[];
}

/**
 * Resolves one tool to a lock entry: the release its constraint selects, and one artifact with a digest per
 * platform (spec: "Resolution rules", "Checksum rules").
 *
 * @throws {ResolveError} when no release satisfies the constraint, or a channel moved without a release
 * @throws {UnsupportedPlatformError} naming the tool, the platform and the release; never a substitute
 */
export async function resolveTool(tool: ProjectTool, context: ResolveContext): Promise<LockedTool> {
  // The privacy lookup does not depend on the release, so it runs beside the resolution chain, not after it.
  const privacy =
    tool.source.type === "github_release" && context.checkPrivacy
      ? context.codeHost.isPrivate(tool.source.repo)
      : Promise.resolve(false);
  privacy.catch(() => {}); // awaited below; a failure of the chain must not leave it unhandled
  const picked = await chooseRelease(tool, context);
  for (const note of picked.notes ?? []) context.onNote?.(note);
  // The version is known now: an override for it (renamed assets of older releases) decides the rest.
  const source = sourceAt(tool.source, picked.version);
  const isChannel = tool.constraint.kind === "channel" || tool.constraint.kind === "channel-commit";
  const chosen = isChannel ? picked : { ...picked, template: source.template };
  const resolved: ProjectTool = { ...tool, source };
  const isPrivate = await privacy;
  // Every platform is checked before anything is downloaded, in a fixed order, so the error is deterministic;
  // then the digests that need a download (trust on first use) are fetched concurrently.
  const planned = [...context.platforms]
    .sort()
    .map((platform) => planArtifact(resolved, { chosen, platform, isPrivate, context }));
  const limit = planned.length;
  const artifacts = await mapConcurrent(planned, (p) => digestArtifact(resolved, p, context), { limit });
  return {
    name: tool.name,
    constraint: tool.constraint.text,
    version: chosen.version,
    bin: source.bin,
    stripComponents: source.stripComponents,
    ...(tool.fingerprint === undefined ? {} : { source: tool.fingerprint }),
    artifacts,
  };
}

/**
 * What choosing a release needs: the code host, a pin to re-resolve at instead of the newest match, and the
 * cooldown.
 */
type ChoiceContext = Pick<ResolveContext, "codeHost" | "pin" | "cooldown">;

/**
 * The version a tool's constraint selects now, with the same requests and rules as `lock` (the cooldown too) but no
 * artifact: for `toolmgr outdated`.
 *
 * @throws {ResolveError} when no release satisfies the constraint
 */
export async function chooseVersion(
  tool: ProjectTool,
  context: { readonly codeHost: CodeHost; readonly cooldown?: Cooldown | undefined },
): Promise<{ version: string; notes: readonly CooldownNote[] }> {
  const chosen = await chooseRelease(tool, context);
  return { version: chosen.version, notes: chosen.notes ?? [] };
}

async function chooseRelease(tool: ProjectTool, context: ChoiceContext): Promise<Chosen> {
  const { source } = tool;
  const { codeHost, cooldown } = context;
  const c = tool.constraint;
  // `lock` refuses undated sources under a window before any request (refuseUndatedSources); never admit one here.
  if (cooldown !== undefined) refuseUndatedSources([tool], () => cooldown.age);
  const isChannel = c.kind === "channel" || c.kind === "channel-commit";
  let template = source.template;
  if (isChannel) {
    // Own keys only: a channel named like an Object.prototype property (`constructor`, `toString`) is a channel name.
    const channel = Object.hasOwn(source.channels, c.channel) ? source.channels[c.channel] : undefined;
    // Rule 3: a channel form needs the recipe to declare the channel, because asset names come from it.
    if (channel === undefined) {
      const known = Object.keys(source.channels);
      throw new ResolveError(
        `Cannot resolve "${tool.name}@${c.text}": the source declares no channel "${c.channel}"${known.length > 0 ? ` (channels: ${known.join(", ")})` : ""}`,
      );
    }
    template = channel.template;
  }
  const needsCommit = templatePlaceholders(template).has("commit");

  if (context.pin !== undefined || c.kind === "channel-commit" || c.kind === "prerelease") {
    const version = context.pin ?? c.text;
    const tag = isChannel ? version : `${source.tagPrefix}${version}`;
    const release = await releaseOf(tool, tag, context);
    // A channel pin names its commit after the channel's whole name (Version forms rule 1: a channel may carry a
    // hyphen, `pre-release`), so the commit is what follows `<channel>-`, never what follows the first hyphen.
    const commit = isChannel ? channelCommit(version, c.channel) : undefined;
    // A pin kept while other tools are locked is not judged again; an exact version is (cooldown.ts).
    const note =
      cooldown !== undefined && context.pin === undefined && release !== undefined
        ? admitExact(tool, { version, tag, release, cooldown })
        : undefined;
    return {
      version,
      tag,
      notes: listOf(note),
      ...(release === undefined ? {} : { release }),
      ...(needsCommit ? { commit: (commit ?? (await commitOf(tool, tag, codeHost))).slice(0, 8) } : {}),
      template,
    };
  }

  if (c.kind === "channel") {
    // Channel rule 1: ask for the commit the moving tag points at now, then the release `<channel>-<commit>`.
    const sha = await codeHost.commit(source.repo, c.channel);
    if (sha === undefined) {
      throw new ResolveError(
        `Cannot resolve "${tool.name}@${c.text}": "${source.repo}" has no tag "${c.channel}"; check the channel name and the repository`,
      );
    }
    let tag = `${c.channel}-${sha}`;
    let release = await codeHost.release(source.repo, tag);
    let notes: readonly CooldownNote[] = [];
    if (cooldown !== undefined) {
      // The newest build old enough; a build not published yet is simply not a candidate under a window.
      const current = { tag, release: release?.draft ? undefined : release };
      const admitted = await admitChannelBuild(tool, { channel: c.channel, current, codeHost, cooldown });
      ({ tag, release, notes } = admitted);
    }
    if (release === undefined || release.draft) {
      // Channel rule 4: never record a URL whose contents can change.
      throw new ResolveError(
        `Cannot pin "${tool.name}@${c.text}": the tag "${c.channel}" moved to ${sha.slice(0, 12)} but no release "${tag}" is published; try again once it is, or pin an earlier "${c.channel}-<commit>"`,
      );
    }
    const commit = tag === `${c.channel}-${sha}` ? sha : (channelCommit(tag, c.channel) ?? "");
    return {
      version: tag,
      tag,
      release,
      notes,
      ...(needsCommit ? { commit: commit.slice(0, 8) } : {}),
      template,
    };
  }

  if (c.parts.length === 3 && source.type === "github_release") {
    // A full triple names exactly one tag, so listing tags can tell nothing more than its release does: ask for the
    // release directly (one request instead of two), with the same rules (published, not a draft, not pre-release).
    const tag = `${source.tagPrefix}${c.text}`;
    const commit = needsCommit ? commitOf(tool, tag, codeHost) : undefined;
    commit?.catch(() => {});
    const release = await codeHost.release(source.repo, tag);
    if (release !== undefined && !release.draft && !release.prerelease) {
      return {
        version: c.text,
        tag,
        release,
        notes: listOf(cooldown && admitExact(tool, { version: c.text, tag, release, cooldown })),
        ...(commit ? { commit: (await commit).slice(0, 8) } : {}),
        template,
      };
    }
    // `29.0.0` also names a release the upstream tags with two components (`v29.0`, Bitcoin Core): look for it
    // among the tags of `29.0` (Bitcoin Core tags `v29.0`). Any other patch has no shorter spelling.
    if (release !== undefined || c.parts[2] !== 0) throw noMatch(tool);
  }

  // Prefix rules 1–4: list tags by prefix, keep <prefix>MAJOR.MINOR.PATCH, apply the constraint on whole
  // components (matching-refs is textual: v1.2 also returns v1.20.0), newest first, skip drafts, pre-releases and
  // tags without a release.
  // A tag of two components is patch 0 (`v29.0`), and a bare suffix (`v29.1rc1`) a pre-release, never chosen here.
  const listed = c.parts.length === 3 ? c.parts.slice(0, 2).join(".") : c.text;
  const refs = await codeHost.matchingTags(source.repo, `${source.tagPrefix}${listed}`);
  const candidates = refs
    .flatMap((ref) => {
      const version = parseStableTag(ref.name, source.tagPrefix);
      return version !== undefined && matchesPrefix(version.parts, c.parts) ? [{ ref, version }] : [];
    })
    .sort((a, b) => newestFirst(a.version, b.version));
  // Under a window: the newest release it holds back, reported beside the one picked (cooldown.ts).
  let heldBack: CooldownNote | undefined;
  for (const { ref, version } of candidates) {
    // The version as the upstream spells it (`29.0`): URLs, the lock and the store use that spelling.
    const text = version.text;
    // `{commit}` is the tagged commit's first 8 hex digits, as the peer renders it; the listed ref already names it
    // for a lightweight tag, so only an annotated tag costs a request, made beside the release lookup.
    const commit = needsCommit ? codeHost.tagCommit(source.repo, ref) : undefined;
    commit?.catch(() => {});
    if (source.type === "http") {
      return {
        version: text,
        tag: ref.name,
        ...(commit ? { commit: (await commit).slice(0, 8) } : {}),
        template,
      };
    }
    const release = await codeHost.release(source.repo, ref.name);
    if (release === undefined || release.draft || release.prerelease) continue;
    let notes: readonly CooldownNote[] = [];
    if (cooldown !== undefined) {
      const tag = ref.name;
      // A full triple (`29.0.0` found as `v29.0`) is an exact version: too young is refused, not held back.
      if (c.parts.length === 3) notes = listOf(admitExact(tool, { version: text, tag, release, cooldown }));
      else {
        const young = judge(tool, { version: text, tag, release, cooldown });
        if (young === undefined) notes = listOf(heldBack);
        else if (cooldown.pinned === text) notes = [...listOf(heldBack), { ...young, kind: "young-pin" }];
        else {
          heldBack ??= young;
          continue;
        }
      }
    }
    return {
      version: text,
      tag: ref.name,
      release,
      notes,
      ...(commit ? { commit: (await commit).slice(0, 8) } : {}),
      template,
    };
  }
  if (heldBack !== undefined) throw everyReleaseYoung(tool, heldBack);
  throw noMatch(tool);
}

function listOf(note: CooldownNote | undefined): readonly CooldownNote[] {
  return note === undefined ? [] : [note];
}

function noMatch(tool: ProjectTool): ResolveError {
  const { source, constraint } = tool;
  return new ResolveError(
    `Cannot resolve "${tool.name}@${constraint.text}": no published stable release of "${source.repo}" matches (tags "${source.tagPrefix}${constraint.text}..."); check the version in toolmgr.toml`,
  );
}

async function releaseOf(
  tool: ProjectTool,
  tag: string,
  context: ChoiceContext,
): Promise<Release | undefined> {
  if (tool.source.type === "http") {
    const tags = await context.codeHost.matchingTags(tool.source.repo, tag);
    if (!tags.some((t) => t.name === tag)) {
      throw new ResolveError(
        `Cannot resolve "${tool.name}@${tool.constraint.text}": "${tool.source.repo}" has no tag "${tag}"; check the version`,
      );
    }
    return undefined;
  }
  const release = await context.codeHost.release(tool.source.repo, tag);
  if (release === undefined) {
    throw new ResolveError(
      `Cannot resolve "${tool.name}@${tool.constraint.text}": "${tool.source.repo}" has no published release "${tag}"; check the version, or whether upstream deleted the release`,
    );
  }
  if (release.draft) {
    throw new ResolveError(
      `Cannot resolve "${tool.name}@${tool.constraint.text}": the release "${tag}" is a draft and publishes no assets; pin a published release`,
    );
  }
  return release;
}

async function commitOf(tool: ProjectTool, tag: string, codeHost: CodeHost): Promise<string> {
  const sha = await codeHost.commit(tool.source.repo, tag);
  if (sha === undefined)
    throw new ResolveError(
      `Cannot resolve "${tool.name}": no commit found for tag "${tag}"; the tag may have been deleted upstream`,
    );
  return sha;
}

/** An artifact whose URL is known; its digest may still need a download. */
interface PlannedArtifact {
  readonly platform: Platform;
  readonly url: string;
  readonly apiUrl: string | undefined;
  readonly hostDigest: string | undefined;
}

function planArtifact(
  tool: ProjectTool,
  options: { chosen: Chosen; platform: Platform; isPrivate: boolean; context: ResolveContext },
): PlannedArtifact {
  const { chosen, platform, context } = options;
  const { source } = tool;
  const release = `${source.repo}@${chosen.tag}`;
  if (!source.platforms.includes(platform)) {
    throw new UnsupportedPlatformError(
      `Cannot lock "${tool.name}" for ${platform}: ${release} is not published for it (supported: ${source.platforms.join(", ")}); remove the platform from toolmgr.toml or drop the tool`,
    );
  }
  let name: string;
  try {
    name = renderTemplate(chosen.template, source, {
      version: chosen.version,
      platform,
      ...(chosen.commit === undefined ? {} : { commit: chosen.commit }),
    });
  } catch (cause) {
    if (cause instanceof SourceError)
      throw new ResolveError(`Cannot lock "${tool.name}" for ${platform}: ${cause.message}`, { cause });
    throw cause;
  }
  let url: string;
  let apiUrl: string | undefined;
  let hostDigest: string | undefined;
  if (chosen.release !== undefined) {
    const matches = chosen.release.assets.filter((a) => a.name === name);
    const asset = matches[0];
    if (asset === undefined) {
      const names = chosen.release.assets.map((a) => a.name).sort();
      const shown = names.length > 12 ? [...names.slice(0, 12), `… ${names.length - 12} more`] : names;
      throw new UnsupportedPlatformError(
        `Cannot lock "${tool.name}" for ${platform}: the release ${release} has no asset "${name}" (it has: ${shown.length > 0 ? shown.join(", ") : "no assets"}); no substitute is chosen`,
      );
    }
    if (matches.length > 1) {
      // Which of two same-named assets a download gets is up to the host: refuse rather than guess.
      throw new ResolveError(
        `Cannot lock "${tool.name}" for ${platform}: the release ${release} carries the asset "${name}" ${matches.length} times; report it upstream`,
      );
    }
    url = asset.browserUrl;
    // Checksum rule 5: only a private artifact records its API URL (spec "Authentication" rule 1: the browser URL
    // of a private asset does not answer without a browser session).
    if (options.isPrivate && asset.apiUrl === undefined) {
      throw new ResolveError(
        `Cannot lock "${tool.name}" for ${platform}: "${source.repo}" is private but the code host gave no API URL for the asset "${asset.name}"; sync could not download it with CODEHOST_TOKEN`,
      );
    }
    apiUrl = options.isPrivate ? asset.apiUrl : undefined;
    hostDigest = asset.sha256;
  } else {
    url = name;
    const host = templateHost(url);
    if (!context.allowHost({ host, repo: source.repo })) {
      throw new ResolveError(
        `Cannot lock "${tool.name}": "${host}" is not in the host policy for "${source.repo}"; an http source may only download from a listed host`,
      );
    }
  }
  checkLockableArtifact(tool, { platform, name, release, url, apiUrl });
  return { platform, url, apiUrl, hostDigest };
}

async function digestArtifact(
  tool: ProjectTool,
  plan: PlannedArtifact,
  context: ResolveContext,
): Promise<LockedArtifact> {
  const { platform, url, apiUrl, hostDigest } = plan;
  const sha256 =
    reusedDigest(context.previous, { tool: tool.name, platform, url, hostDigest }) ??
    hostDigest ??
    (await context.digest({ url, apiUrl }));
  return { platform, url, sha256, ...(apiUrl === undefined ? {} : { apiUrl }) };
}

/** The commit of a `<channel>-<commit>` version, or undefined when `version` is not one of `channel`. */
function channelCommit(version: string, channel: string): string | undefined {
  const commit = version.startsWith(`${channel}-`) ? version.slice(channel.length + 1) : "";
  return /^[0-9a-f]{7,64}$/.test(commit) ? commit : undefined;
}
