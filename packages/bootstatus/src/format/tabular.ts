import type { BootStatus } from "../boot-status.js";
import { isPythonFloat, orderedEntries, orderedKeys } from "../python/float.js";
import { pythonStr, pythonTruthy } from "../python/repr.js";

/** What Python's `for item in value` yields for a value loaded from JSON: list items, characters, dict keys. */
function pythonItems(value: unknown): unknown[] {
  if (typeof value === "string") return [...value];
  if (Array.isArray(value)) return value;
  if (value !== null && typeof value === "object" && !isPythonFloat(value)) return orderedKeys(value);
  // Python raises TypeError here (not iterable); show the value itself rather than crash.
  return [value];
}

/**
 * cloud-init's tabular output, byte for byte (status.py print_status and TABULAR_LONG_TMPL): `status:` only,
 * or with `long` the extended lines, tab-indented error lists and no last_update line when there is none.
 */
export function formatTabular(status: BootStatus, options: { long: boolean }): string {
  // cloud-init prints from details_dict, where `**v1` comes last, so a v1 key named like a field overrides it;
  // f-strings then print it with str() and the error lists iterate it as Python does.
  const v1 = status.v1;
  const pick = (key: string, computed: unknown): unknown => (Object.hasOwn(v1, key) ? v1[key] : computed);
  const lines = [`status: ${pythonStr(pick("status", status.status))}`];
  if (!options.long) return `${lines.join("\n")}\n`;
  const lastUpdate = pick("last_update", status.lastUpdate);
  const errors = pick("errors", status.errors);
  lines.push(`extended_status: ${pythonStr(pick("extended_status", status.extendedStatus))}`);
  lines.push(`boot_status_code: ${pythonStr(pick("boot_status_code", status.bootStatusCode))}`);
  if (pythonTruthy(lastUpdate)) lines.push(`last_update: ${pythonStr(lastUpdate)}`);
  lines.push(`detail: ${pythonStr(pick("detail", status.detail))}`);
  if (pythonTruthy(errors)) {
    // One push per item: spreading 125,000 errors into push() overflows the stack.
    lines.push("errors:");
    for (const e of pythonItems(errors)) lines.push(`\t- ${pythonStr(e)}`);
  } else lines.push("errors: []");
  // The merged levels in first-seen order (a JS object would list integer-like level names first).
  const recoverable = v1.recoverable_errors;
  const levels: [string, unknown][] = !Object.hasOwn(v1, "recoverable_errors")
    ? status.recoverableErrors.map((r) => [r.level, r.messages])
    : pythonTruthy(recoverable) && typeof recoverable === "object" && !Array.isArray(recoverable)
      ? orderedEntries(recoverable as Record<string, unknown>)
      : [];
  if (levels.length > 0) {
    lines.push("recoverable_errors:");
    for (const [level, messages] of levels) {
      // An empty level still prints its `\t- ` (upstream joins nothing after it).
      const list = pythonItems(messages).map((m) => pythonStr(m).replaceAll("\n", " "));
      lines.push(`${level}:\n\t- ${list.join("\n\t- ")}`);
    }
  } else {
    lines.push("recoverable_errors: {}");
  }
  return `${lines.join("\n")}\n`;
}
