import { ProjectFileError, UsageError } from "../errors.js";

/**
 * A minimum release age (`min_release_age`, mise's `minimum_release_age`): how long ago a release must have been
 * published for `lock` to pick it. Parsed once, at the edge, from `toolmgr.toml` or `TOOLMGR_MIN_RELEASE_AGE`.
 */
export interface ReleaseAge {
  /** The window in milliseconds; 0 turns the cooldown off. */
  readonly ms: number;
  /** As written: `7d`, `12h`, `30m`, `0`. */
  readonly text: string;
  /** Where it was set, for messages: `<path> line <n>` or `TOOLMGR_MIN_RELEASE_AGE`. */
  readonly origin: string;
}

/** The environment variable that sets the window for every tool of one run, over both keys of the project file. */
export const RELEASE_AGE_ENV = "TOOLMGR_MIN_RELEASE_AGE";

const UNIT_MS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Ten years: a longer window is a typo, and past it dates stop being representable soon enough to matter. */
const MAX_MS = 3650 * 86_400_000;

const HOW =
  'write a whole number with m (minutes), h (hours) or d (days), for example "7d", or "0" to turn it off';

/** The window `text` names, in milliseconds, or undefined when it is not one (`7w`, `-1d`, `1.5d`, `7`). */
function ageMs(text: string): number | undefined {
  if (text === "0") return 0;
  const match = /^(0|[1-9][0-9]{0,6})([mhd])$/.exec(text);
  if (match === null) return undefined;
  const ms = Number(match[1]) * (UNIT_MS[match[2] ?? ""] ?? Number.NaN);
  return ms <= MAX_MS ? ms : undefined;
}

/** Why a value is not a window. */
function why(text: string): string {
  return /^[0-9]+[mhd]$/.test(text) ? "is longer than 3650 days" : "is not a duration";
}

/**
 * The `min_release_age` value of a project file: at the top (`table` empty) or in `[tools.<name>]`
 * (`table` = `["tools", name]`). `text` is the file's text, searched for the key's line.
 *
 * @throws {ProjectFileError} naming the key and its line when the value is not a string like `"7d"`
 */
export function parseReleaseAge(
  value: unknown,
  options: { readonly path: string; readonly text: string; readonly table: readonly string[] },
): ReleaseAge {
  const line = keyLine(options.text, [...options.table, "min_release_age"]);
  const origin = line === undefined ? options.path : `${options.path} line ${line}`;
  const key = options.table.length === 0 ? "min_release_age" : `[${options.table.join(".")}] min_release_age`;
  if (typeof value !== "string") {
    throw new ProjectFileError(
      `Cannot parse ${origin}: ${key} must be a string such as "7d", not ${typeof value === "number" || typeof value === "bigint" ? `the number ${value}` : typeof value}; ${HOW}`,
    );
  }
  const ms = ageMs(value);
  if (ms === undefined) {
    throw new ProjectFileError(
      `Cannot parse ${origin}: ${key} = ${JSON.stringify(value)} ${why(value)}; ${HOW}`,
    );
  }
  return { ms, text: value, origin };
}

/**
 * `TOOLMGR_MIN_RELEASE_AGE`, when set: the window for every tool of this run, over both keys of the project file.
 *
 * @throws {UsageError} naming the variable when it does not parse
 */
export function releaseAgeFromEnv(env: Readonly<Record<string, string | undefined>>): ReleaseAge | undefined {
  const text = env[RELEASE_AGE_ENV];
  if (text === undefined || text === "") return undefined;
  const ms = ageMs(text);
  if (ms === undefined)
    throw new UsageError(`Cannot use ${RELEASE_AGE_ENV}=${JSON.stringify(text)}: it ${why(text)}; ${HOW}`);
  return { ms, text, origin: RELEASE_AGE_ENV };
}

/**
 * The 1-based line that sets the key `path` (table names, then the key) in TOML `text`, under a `[table]` header, as
 * a dotted key, or inside a one-line inline table; undefined when no line does (smol-toml reports no positions for
 * values, and a message without a line is still right).
 */
function keyLine(text: string, path: readonly string[]): number | undefined {
  const want = path.join("\0");
  const table = path.slice(0, -1).join("\0");
  const leaf = path[path.length - 1] ?? "";
  let header: string[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? "").trim();
    const heading = /^\[\s*([^\]]+?)\s*\]/.exec(line);
    if (heading !== null && !line.startsWith("[[")) {
      header = keySegments(heading[1] ?? "") ?? [];
      continue;
    }
    const assignment = /^([^=#]+?)\s*=(.*)$/.exec(line);
    if (assignment === null) continue;
    const key = keySegments(assignment[1] ?? "");
    if (key === undefined) continue;
    const full = [...header, ...key].join("\0");
    if (full === want) return i + 1;
    // `name = { version = "1", min_release_age = "7w" }` under [tools]
    if (full === table && new RegExp(`[{,]\\s*${leaf}\\s*=`).test(assignment[2] ?? "")) return i + 1;
  }
  return undefined;
}

/** The segments of a TOML key (`tools."a.b".min_release_age`), or undefined when it is not one. */
function keySegments(key: string): string[] | undefined {
  const segments: string[] = [];
  const pattern = /\s*(?:"([^"]*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*(\.|$)/y;
  let at = 0;
  while (at < key.length) {
    pattern.lastIndex = at;
    const match = pattern.exec(key);
    if (match === null) return undefined;
    segments.push(match[1] ?? match[2] ?? match[3] ?? "");
    at = pattern.lastIndex;
    if (match[4] === "") break;
  }
  return segments;
}
