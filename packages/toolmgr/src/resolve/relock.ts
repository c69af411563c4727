import { ResolveError } from "../errors.js";
import type { LockedTool, Lockfile } from "../lockfile.js";
import type { Platform } from "../platform.js";
import type { ProjectTool } from "../project/project-file.js";
import { constraintAllows } from "../version/constraint.js";

// Checksum rule 4 (spec/toolmgr.md): "Re-locking reuses the recorded digest whenever the URL is unchanged; an
// unchanged artifact is never fetched twice." This file holds all of it: which entry of the existing lock a tool may
// borrow from (`relockPlan`), and the reuse of a digest for an unchanged URL (`reusedDigest`).

/** What the existing lock lends one tool when it is locked again. */
export type RelockPlan =
  /** Kept as it is: `lock <other tools>` left this tool alone and its artifacts cover every platform. */
  | { readonly kind: "keep"; readonly tool: LockedTool }
  | {
      readonly kind: "resolve";
      /** The entry whose digests are reused for unchanged URLs (whatever else changed: the URL names the bytes). */
      readonly previous: LockedTool | undefined;
      /** Re-resolve at exactly this version (a kept pin gaining platforms) instead of the newest match. */
      readonly pin: string | undefined;
    };

/**
 * Decides what `existing` lends `tool`. `only` is the set of tools `lock <tool>...` names (empty: every tool is
 * re-resolved); `platforms` the platforms the new lock covers.
 */
export function relockPlan(
  tool: ProjectTool,
  options: {
    readonly existing: Lockfile | undefined;
    readonly only: ReadonlySet<string>;
    readonly platforms: readonly Platform[];
  },
): RelockPlan {
  const { only, platforms } = options;
  const previous = options.existing?.tools.find((t) => t.name === tool.name);
  const samePin =
    previous !== undefined &&
    previous.constraint === tool.constraint.text &&
    previous.source === tool.fingerprint &&
    // A pin its constraint does not allow (a hand edit) is resolved again, never kept.
    constraintAllows(tool.constraint, previous.version);
  const keep = only.size > 0 && !only.has(tool.name) && samePin;
  if (keep && platforms.every((p) => previous.artifacts.some((a) => a.platform === p))) {
    return {
      kind: "keep",
      tool: { ...previous, artifacts: previous.artifacts.filter((a) => platforms.includes(a.platform)) },
    };
  }
  return {
    kind: "resolve",
    // Checksum rule 4: a digest stays valid for its URL across any change of the constraint or the definition (a bin
    // list, strip_components): an unchanged URL is never fetched twice (nao1215/block lock_check.atago.yaml, "a
    // project-local source changed", fetched it again before). A changed URL finds no digest to reuse.
    previous,
    pin: keep ? previous.version : undefined,
  };
}

/**
 * The digest the previous lock records for `url` on `platform`, or `undefined` when the URL is new (then the host's
 * digest or a download decides). A host digest that differs from the recorded one for the same URL means the asset
 * was replaced upstream (aquaproj/aqua-installer#860), which must not pass silently.
 *
 * @throws {ResolveError} when the host now reports another digest for an unchanged URL
 */
export function reusedDigest(
  previous: LockedTool | undefined,
  artifact: {
    readonly tool: string;
    readonly platform: Platform;
    readonly url: string;
    readonly hostDigest: string | undefined;
  },
): string | undefined {
  const { tool, platform, url, hostDigest } = artifact;
  const before = previous?.artifacts.find((a) => a.platform === platform && a.url === url);
  if (before === undefined) return undefined;
  if (hostDigest !== undefined && hostDigest !== before.sha256) {
    throw new ResolveError(
      `Cannot lock "${tool}" for ${platform}: the host now reports sha256 ${hostDigest} for ${url}, but the lock records ${before.sha256}; the asset was replaced upstream — investigate before re-pinning`,
    );
  }
  return before.sha256;
}
