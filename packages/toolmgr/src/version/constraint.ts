import { ProjectFileError, SourceError } from "../errors.js";
import { checkChannelName } from "../safe-names.js";

/**
 * A version constraint from `toolmgr.toml` (spec: "Version forms"):
 * - `prefix`: `1`, `1.2`, `1.2.3` — the newest stable release under it (a full triple means that release);
 * - `prerelease`: `1.2.3-rc.1` — that pre-release only;
 * - `channel`: `nightly` — the release line under a tag the upstream moves; floats;
 * - `channel-commit`: `nightly-<7..64 hex>` — one release of that channel; does not float.
 */
export type Constraint =
  | { readonly kind: "prefix"; readonly text: string; readonly parts: readonly number[] }
  | { readonly kind: "prerelease"; readonly text: string }
  | { readonly kind: "channel"; readonly text: string; readonly channel: string }
  | {
      readonly kind: "channel-commit";
      readonly text: string;
      readonly channel: string;
      readonly commit: string;
    };

const PREFIX = /^(0|[1-9]\d*)(?:\.(0|[1-9]\d*))?(?:\.(0|[1-9]\d*))?$/;
const PRERELEASE = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*$/;
// Rule 1: a commit is 7 to 64 lower-case hex digits; anything else after a hyphen belongs to the channel's name.
const CHANNEL_COMMIT = /^(.+)-([0-9a-f]{7,64})$/;

/**
 * Parses a constraint as written for tool `tool`.
 *
 * @throws {ProjectFileError} naming the tool and what is wrong with the constraint
 */
export function parseConstraint(text: string, tool: string): Constraint {
  const prefix = PREFIX.exec(text);
  if (prefix) {
    return {
      kind: "prefix",
      text,
      parts: prefix
        .slice(1)
        .filter((p) => p !== undefined)
        .map(Number),
    };
  }
  if (PRERELEASE.test(text)) return { kind: "prerelease", text };
  // A leading digit, an operator or a list is a version attempt, not a channel name: say what forms exist.
  if (/^(?:v?\d|[<>=~^*])/.test(text) || /[\s,|]/.test(text)) {
    throw new ProjectFileError(
      `Cannot parse the version of "${tool}": "${text}" is not a version; write 1, 1.2, 1.2.3, 1.2.3-rc.1 (no leading "v") or a channel (ranges and operators are not supported)`,
    );
  }
  const where = `the version of "${tool}"`;
  const commitForm = CHANNEL_COMMIT.exec(text);
  try {
    if (commitForm) {
      const channel = commitForm[1] ?? "";
      checkChannelName(channel, where);
      return { kind: "channel-commit", text, channel, commit: commitForm[2] ?? "" };
    }
    checkChannelName(text, where);
  } catch (cause) {
    if (cause instanceof SourceError) throw new ProjectFileError(cause.message, { cause });
    throw cause;
  }
  return { kind: "channel", text, channel: text };
}

/**
 * A version as an upstream tags it, after the recipe's `tag_prefix`: `1.2.3`, or two components (`29.0`, patch 0:
 * Bitcoin Core tags `v29.0` since 2022), optionally with a pre-release: `-rc.1`, or a bare alphabetic suffix after
 * the last number (`29.1rc1`). nao1215/block internal/version/version.go ("Upstreams are not uniformly semver") is
 * the model; `text` keeps the spelling, which is what URLs, the lock and the store use.
 */
export interface TagVersion {
  /** The spelling after the tag prefix (`29.0`, not `29.0.0`). */
  readonly text: string;
  /** MAJOR, MINOR, PATCH (a two-component tag has patch 0). */
  readonly parts: readonly [number, number, number];
  /** The pre-release (`rc1`, `rc.1`), or undefined for a release. */
  readonly pre: string | undefined;
}

const TAG_VERSION =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)(?:\.(0|[1-9]\d*))?(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)|([A-Za-z][0-9A-Za-z]*(?:\.[0-9A-Za-z-]+)*))?$/;

/** Parses the version of a tag (`<prefix><version>`); undefined for a tag that carries none (`nightly`, `v1`). */
export function parseTagVersion(tag: string, tagPrefix: string): TagVersion | undefined {
  if (!tag.startsWith(tagPrefix)) return undefined;
  const text = tag.slice(tagPrefix.length);
  const m = TAG_VERSION.exec(text);
  if (!m) return undefined;
  return {
    text,
    parts: [Number(m[1]), Number(m[2]), m[3] === undefined ? 0 : Number(m[3])],
    pre: m[4] ?? m[5],
  };
}

/**
 * A stable (release) version of a tag: `<prefix>MAJOR.MINOR[.PATCH]`. A pre-release (`-rc.1`, `rc1`) is never one,
 * so a prefix constraint can never choose it.
 */
export function parseStableTag(tag: string, tagPrefix: string): TagVersion | undefined {
  const version = parseTagVersion(tag, tagPrefix);
  return version !== undefined && version.pre === undefined ? version : undefined;
}

/**
 * Orders tag versions, newest first: by number, then (`29.0` and `29.0.0` both tagged, one release to a reader) by
 * spelling, so the choice never depends on the order the host listed tags in (block's `compareTotal`).
 */
export function newestFirst(a: TagVersion, b: TagVersion): number {
  for (let i = 0; i < 3; i++) {
    const d = (b.parts[i] ?? 0) - (a.parts[i] ?? 0);
    if (d !== 0) return d;
  }
  return a.text < b.text ? 1 : a.text > b.text ? -1 : 0;
}

/** Whether a stable version is under a prefix constraint, comparing whole components (`1.2` does not hold `1.20.0`). */
export function matchesPrefix(version: readonly number[], parts: readonly number[]): boolean {
  return parts.every((p, i) => version[i] === p);
}

/**
 * Whether a pinned version is one the constraint can select: a stable version under a prefix (whole components;
 * `29`, `29.0` and `29.0.0` all allow `29.0`), the
 * pre-release or `<channel>-<commit>` itself, or for a bare channel a `<channel>-<commit>` release. A lock arrives
 * through pull requests, so `sync`, `exec` and the shims refuse a pin that its constraint does not allow (a
 * hand-edited version, or a channel pin floated back onto the moving tag) as a stale lock (nao1215/block
 * e2e/atago/sync.atago.yaml, "a pinned version that does not satisfy its constraint is refused").
 */
export function constraintAllows(constraint: Constraint, version: string): boolean {
  switch (constraint.kind) {
    case "prefix": {
      const stable = parseStableTag(version, "");
      return stable !== undefined && matchesPrefix(stable.parts, constraint.parts);
    }
    case "prerelease":
    case "channel-commit":
      return version === constraint.text;
    case "channel":
      return (
        version.startsWith(`${constraint.channel}-`) &&
        /^[0-9a-f]{7,64}$/.test(version.slice(constraint.channel.length + 1))
      );
  }
}
