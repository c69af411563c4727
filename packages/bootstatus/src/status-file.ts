import { isPythonFloat, orderedEntries, parseJsonKeepingFloats } from "./python/float.js";
import { pythonStr, pythonTruthy } from "./python/repr.js";

/** One stage entry of status.json's `v1` (every object-valued entry is a stage, unknown keys included). */
export interface Stage {
  start: number | null;
  finished: number | null;
  errors: string[];
  /** level → messages, in the stage's own key order. */
  recoverableErrors: [string, string[]][];
}

/** status.json's `v1`, parsed: typed fields for what the status computation uses, plus the raw object. */
export interface StatusV1 {
  /**
   * `v1.datasource`: undefined when absent (cloud-init's `get_datasource` distinguishes absent from null), a string
   * whenever Python finds it truthy; a false value of another type (`null`, `0`, `false`, `[]`, `{}`) is kept as it
   * is, since cloud-init accepts and prints those.
   */
  datasource: unknown;
  /** `v1.stage` when Python finds it truthy, rendered as cloud-init's f-string would (`['a']` for a list). */
  stage: string | undefined;
  /** Stage entries by key. */
  stages: Map<string, Stage>;
  /** The raw `v1` object, copied verbatim into cloud-init's own JSON. */
  raw: Record<string, unknown>;
  /** What is wrong with the file, one message each; a problem field is treated as absent. */
  problems: string[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !isPythonFloat(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === "string");
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (isPythonFloat(value)) return `number ${value.pythonInt ?? value.pythonFloat}`;
  return typeof value === "object" ? "an object" : `${typeof value} ${JSON.stringify(value)}`;
}

function time(value: unknown, where: string, problems: string[]): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (isPythonFloat(value)) return value.pythonFloat;
  problems.push(`${where} must be a number or null, got ${describe(value)}`);
  return null;
}

function parseStage(key: string, entry: Record<string, unknown>, problems: string[]): Stage {
  const where = `v1.${key}`;
  // `.get("errors", [])`: only an absent key defaults; `null` makes get_errors raise (extend(None), None.keys()).
  const errors = entry.errors === undefined ? [] : entry.errors;
  const recoverable = entry.recoverable_errors === undefined ? {} : entry.recoverable_errors;
  const stage: Stage = {
    start: time(entry.start, `${where}.start`, problems),
    finished: time(entry.finished, `${where}.finished`, problems),
    errors: [],
    recoverableErrors: [],
  };
  if (isStringArray(errors)) stage.errors = errors;
  else problems.push(`${where}.errors must be an array of strings, got ${describe(errors)}`);
  if (!isRecord(recoverable)) {
    problems.push(
      `${where}.recoverable_errors must be an object of level to messages, got ${describe(recoverable)}`,
    );
    return stage;
  }
  // In the file's order, as Python's dict keeps it, integer-like level names included.
  for (const [level, messages] of orderedEntries(recoverable)) {
    if (isStringArray(messages)) stage.recoverableErrors.push([level, messages]);
    else
      problems.push(
        `${where}.recoverable_errors.${level} must be an array of strings, got ${describe(messages)}`,
      );
  }
  return stage;
}

/**
 * A one-line reason for a JSON.parse failure: V8's message without the copy of the input it may quote (which
 * can span lines), a BOM named as such (Python's json.loads rejects it too).
 */
function jsonProblem(text: string, error: Error): string {
  if (text.startsWith("\ufeff")) return "it starts with a UTF-8 byte order mark";
  if (text.trim() === "") return "the file is empty";
  const reason = error.message.split(', "')[0] ?? error.message;
  return reason.replaceAll("\n", " ");
}

/** A `v1` without stages or fields: what cloud-init works from when status.json is absent or unusable. */
export function emptyStatusV1(): StatusV1 {
  return { datasource: undefined, stage: undefined, stages: new Map(), raw: {}, problems: [] };
}

/**
 * Parses status.json text. Never throws: what is malformed becomes a message in `problems` that names `file`,
 * and the rest of the file still counts (a malformed status.json is a report of status error, not a crash).
 */
export function parseStatusJson(text: string, file: string): StatusV1 {
  const result = emptyStatusV1();
  const problems: string[] = [];
  let doc: unknown;
  try {
    // Integral floats stay floats so cloud-init-json reprints `124.0` as cloud-init does.
    doc = parseJsonKeepingFloats(text);
  } catch (error) {
    result.problems.push(`Cannot read ${file}: not valid JSON: ${jsonProblem(text, error as Error)}`);
    return result;
  }
  if (!isRecord(doc)) {
    result.problems.push(`Cannot read ${file}: expected a JSON object, got ${describe(doc)}`);
    return result;
  }
  // `.get("v1", {})`: only an absent v1 defaults to {}; `"v1": null` makes cloud-init fail.
  const v1 = doc.v1 === undefined ? {} : doc.v1;
  if (!isRecord(v1)) {
    result.problems.push(`Cannot read ${file}: v1 must be an object, got ${describe(v1)}`);
    return result;
  }
  result.raw = v1;
  for (const [key, value] of Object.entries(v1)) {
    if (isRecord(value)) result.stages.set(key, parseStage(key, value, problems));
  }
  const ds = v1.datasource;
  // get_datasource calls `.partition(" ")` on a truthy datasource only, so a false value of any type passes.
  if (typeof ds === "string" || !pythonTruthy(ds)) result.datasource = ds;
  else problems.push(`v1.datasource must be a string or null, got ${describe(ds)}`);
  // status.py get_description: `elif status_v1.get("stage"): f"Running in stage: {status_v1['stage']}"`.
  result.stage = pythonTruthy(v1.stage) ? pythonStr(v1.stage) : undefined;
  result.problems = problems.map((p) => `Cannot read ${file}: ${p}`);
  return result;
}
