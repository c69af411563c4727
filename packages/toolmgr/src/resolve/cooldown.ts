import { ResolveError, YoungReleaseError } from "../errors.js";
import type { CodeHost, Release } from "../http/code-host.js";
import type { ProjectConfig, ProjectTool } from "../project/project-file.js";
import { RELEASE_AGE_ENV, type ReleaseAge, releaseAgeFromEnv } from "../project/release-age.js";

// A release cooldown (mise's `minimum_release_age`, Renovate's `minimumReleaseAge`): `lock` picks only releases the
// code host says were published (`published_at`) at least the window ago, the time in which malicious releases are
// usually caught and pulled. Unlike mise, which lets exact pins and releases without a date through, nothing passes
// unchecked here: an exact version that is too young is refused (unless `--allow-young`), and a release without a
// date, or an `http` source (whose versions are git tags), cannot be judged and is refused too.

/** The window one tool is resolved under, with the clock and the pin the lock already holds. */
export interface Cooldown {
  /** A window of more than 0. */
  readonly age: ReleaseAge;
  readonly now: Date;
  /** The version the lock pins for this very constraint: kept (and reported) when the window holds it back. */
  readonly pinned?: string | undefined;
}

/** What the window did to one tool, reported by `lock` and `outdated`. */
export interface CooldownNote {
  /**
   * `held-back`: a newer release the constraint allows, not picked until `eligibleAt`; `young-pin`: the version the
   * lock already pins, kept although it is younger than the window (a pin never moves silently).
   */
  readonly kind: "held-back" | "young-pin";
  readonly version: string;
  readonly publishedAt: Date;
  readonly eligibleAt: Date;
  readonly age: ReleaseAge;
}

/**
 * The window `tool` is resolved under: `TOOLMGR_MIN_RELEASE_AGE`, else `[tools.<name>] min_release_age`, else the
 * top-level `min_release_age` (mise's precedence: the one-run override, then per tool, then global); undefined when
 * none is set or it is 0.
 *
 * @throws {UsageError} when `TOOLMGR_MIN_RELEASE_AGE` does not parse
 */
export function releaseAgeOf(
  tool: ProjectTool,
  options: { readonly project: ProjectConfig; readonly env: Readonly<Record<string, string | undefined>> },
): ReleaseAge | undefined {
  const age = releaseAgeFromEnv(options.env) ?? tool.minReleaseAge ?? options.project.minReleaseAge;
  return age === undefined || age.ms === 0 ? undefined : age;
}

/**
 * Refuses, before any request, a tool whose source carries no release date (`http`: versions are git tags) under a
 * window: it cannot be checked, so it is never admitted silently.
 *
 * @throws {ResolveError} naming the tool, the window and how to exempt the tool
 */
export function refuseUndatedSources(
  tools: readonly ProjectTool[],
  ageOf: (tool: ProjectTool) => ReleaseAge | undefined,
): void {
  for (const tool of tools) {
    const age = ageOf(tool);
    if (age === undefined || tool.source.type !== "http") continue;
    throw new ResolveError(
      `Cannot resolve "${tool.name}": its source is of type "http", whose versions are git tags with no release date, so ${windowText(age)} cannot be checked; ${exemption(tool, age)}`,
    );
  }
}

/** `2026-12-02 14:32 UTC`: a date as the messages and the `lock`/`outdated` lines print it. */
export function formatUtc(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** When a release becomes eligible, to the minute, rounded up: never a minute at which it is still refused. */
export function formatEligible(date: Date): string {
  return formatUtc(new Date(Math.ceil(date.getTime() / 60_000) * 60_000));
}

/** A note as `lock` and `outdated` print it: `1.4.0 held back until 2026-12-02 14:32 UTC`, or why a pin was kept. */
export function noteText(note: CooldownNote): string {
  if (note.kind === "held-back") return `${note.version} held back until ${formatEligible(note.eligibleAt)}`;
  return `kept although younger than min_release_age ${note.age.text}: published ${formatUtc(note.publishedAt)}, eligible ${formatEligible(note.eligibleAt)}`;
}

/** A release of a tool to be judged against its window: the version, its tag, the release as the host gave it. */
export interface CooldownCandidate {
  readonly version: string;
  readonly tag: string;
  readonly release: Release;
  readonly cooldown: Cooldown;
}

/**
 * Admits an exact version (`1.2.3`, `1.2.3-rc.1`, `<channel>-<commit>`): a release old enough passes; a younger one
 * is refused, unless the lock already pins it (then it is kept and reported).
 *
 * @throws {ResolveError} naming the release date and when it becomes eligible
 */
export function admitExact(tool: ProjectTool, options: CooldownCandidate): CooldownNote | undefined {
  const { version, tag, cooldown } = options;
  const note = judge(tool, options);
  if (note === undefined) return undefined;
  if (cooldown.pinned === version) return { ...note, kind: "young-pin" };
  throw new YoungReleaseError(
    `Cannot lock "${tool.name}@${tool.constraint.text}": the release "${tag}" of "${tool.source.repo}" was published ${formatUtc(note.publishedAt)}, younger than ${windowText(cooldown.age)}; it becomes eligible ${formatEligible(note.eligibleAt)}. Pin an older release, wait, or take it now with \`toolmgr lock --allow-young ${tool.name}\``,
    { heldBack: note },
  );
}

/**
 * A release the window holds back (with when it becomes eligible), or undefined when it is old enough.
 *
 * @throws {ResolveError} when the host gave no publication date, so the window cannot be checked
 */
export function judge(tool: ProjectTool, options: CooldownCandidate): CooldownNote | undefined {
  const { version, tag, release, cooldown } = options;
  const publishedAt = release.publishedAt;
  if (publishedAt === undefined) {
    throw new ResolveError(
      `Cannot resolve "${tool.name}@${tool.constraint.text}": the code host gives no publication date (published_at) for the release "${tag}" of "${tool.source.repo}", so ${windowText(cooldown.age)} cannot be checked; ${exemption(tool, cooldown.age)}`,
    );
  }
  const eligibleAt = new Date(publishedAt.getTime() + cooldown.age.ms);
  if (eligibleAt.getTime() <= cooldown.now.getTime()) return undefined;
  return { kind: "held-back", version, publishedAt, eligibleAt, age: cooldown.age };
}

/** No release under the constraint is old enough: `newest` is the newest one the window holds back. */
export function everyReleaseYoung(tool: ProjectTool, newest: CooldownNote): YoungReleaseError {
  return new YoungReleaseError(
    `Cannot resolve "${tool.name}@${tool.constraint.text}": every published release it allows is younger than ${windowText(newest.age)}; the newest, ${newest.version}, was published ${formatUtc(newest.publishedAt)} and becomes eligible ${formatEligible(newest.eligibleAt)}. Wait, or take it now with \`toolmgr lock --allow-young ${tool.name}\``,
    { heldBack: newest },
  );
}

/** A channel build the window admits: the release and its tag, with what the window held back or kept. */
export interface AdmittedBuild {
  readonly tag: string;
  readonly release: Release;
  readonly notes: readonly CooldownNote[];
}

/**
 * The newest build of a channel (`<channel>-<commit>`) old enough for the window. The channel's tag names only the
 * newest build; older ones are found by listing the tags `<channel>-` starts (`git/matching-refs`, answered whole,
 * as for versions) and reading each one's release for its `published_at`: tags carry no date, and commit hashes no
 * order. The releases list (`GET /releases`, ordered by creation, paged) would cost fewer requests but is an endpoint
 * the spec does not use; this costs one request per listed build, and only when the newest build is too young (a
 * later `lock` revalidates them with their ETags, which costs no rate limit). A young build the lock already pins is
 * kept, as a version is.
 *
 * @throws {ResolveError} when no build is old enough, or one has no publication date
 */
export async function admitChannelBuild(
  tool: ProjectTool,
  options: {
    readonly channel: string;
    /** The build the channel's tag points at now, with its release unless none is published yet. */
    readonly current: { readonly tag: string; readonly release: Release | undefined };
    readonly codeHost: CodeHost;
    readonly cooldown: Cooldown;
  },
): Promise<AdmittedBuild> {
  const { channel, current, codeHost, cooldown } = options;
  const young: { tag: string; release: Release; note: CooldownNote }[] = [];
  if (current.release !== undefined) {
    const note = judge(tool, { version: current.tag, tag: current.tag, release: current.release, cooldown });
    if (note === undefined) return { tag: current.tag, release: current.release, notes: [] };
    young.push({ tag: current.tag, release: current.release, note });
  }
  let newest: { tag: string; release: Release } | undefined;
  if (cooldown.pinned !== current.tag) {
    const build = new RegExp(`^${channel.replace(/[.]/g, "\\.")}-[0-9a-f]{7,64}$`);
    const tags = (await codeHost.matchingTags(tool.source.repo, `${channel}-`))
      .map((t) => t.name)
      .filter((name) => build.test(name) && name !== current.tag);
    const releases = await Promise.all(
      tags.map(async (tag) => ({ tag, release: await codeHost.release(tool.source.repo, tag) })),
    );
    for (const { tag, release } of releases) {
      // Version forms rule 4: a draft publishes no assets; a pre-release flag is no objection for a channel.
      if (release === undefined || release.draft) continue;
      const note = judge(tool, { version: tag, tag, release, cooldown });
      if (note !== undefined) young.push({ tag, release, note });
      else if (newest === undefined || publishedMs(release) > publishedMs(newest.release))
        newest = { tag, release };
    }
  }
  young.sort((a, b) => b.note.publishedAt.getTime() - a.note.publishedAt.getTime());
  const pinned = young.find((y) => y.tag === cooldown.pinned);
  if (pinned !== undefined) {
    // Kept; what is newer than the pin is what the window holds back.
    const newer = young.find((y) => y.note.publishedAt > pinned.note.publishedAt);
    const notes = [...(newer ? [newer.note] : []), { ...pinned.note, kind: "young-pin" as const }];
    return { tag: pinned.tag, release: pinned.release, notes };
  }
  const heldBack = young[0]?.note;
  if (newest === undefined) {
    if (heldBack !== undefined) throw everyReleaseYoung(tool, heldBack);
    throw new ResolveError(
      `Cannot pin "${tool.name}@${tool.constraint.text}": "${tool.source.repo}" publishes no "${channel}-<commit>" release older than ${windowText(cooldown.age)}; wait, or take the newest now with \`toolmgr lock --allow-young ${tool.name}\``,
    );
  }
  return { ...newest, notes: heldBack === undefined ? [] : [heldBack] };
}

function publishedMs(release: Release): number {
  return release.publishedAt?.getTime() ?? 0;
}

/** `min_release_age 7d (toolmgr.toml line 3)`: the window and where it was set. */
function windowText(age: ReleaseAge): string {
  return `min_release_age ${age.text} (${age.origin})`;
}

/**
 * How to exempt one tool for good (`--allow-young` would admit it once, and the next `lock` would refuse it again,
 * as it can never be dated): a `[tools.<name>]` table with the version and a window of 0; the variable overrides it.
 */
function exemption(tool: ProjectTool, age: ReleaseAge): string {
  const key = `exempt it in toolmgr.toml with a [tools.${tool.name}] table holding version = ${JSON.stringify(tool.constraint.text)} and min_release_age = "0"`;
  return age.origin === RELEASE_AGE_ENV
    ? `${RELEASE_AGE_ENV} applies to every tool of this run, so unset it and ${key}`
    : key;
}
