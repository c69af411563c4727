import type { BootStatus } from "../boot-status.js";
import { recoverableByLevel } from "../boot-status.js";
import { isPythonFloat } from "../python/float.js";
import { comparePythonStrings, pythonNumber } from "../python/repr.js";

/**
 * cloud-init's own `status --format json` (26.x): the flat details dict with every v1 entry copied to the top
 * level (a v1 key of the same name overrides the computed one, as `**v1` does), printed like Python's
 * `json.dumps(d, indent=2, sort_keys=True, separators=(",", ": "))` with its default ensure_ascii.
 */
export function formatCloudInitJson(status: BootStatus): string {
  const details: Record<string, unknown> = {
    datasource: status.datasource,
    boot_status_code: status.bootStatusCode,
    status: status.status,
    extended_status: status.extendedStatus,
    detail: status.detail,
    errors: status.errors,
    recoverable_errors: recoverableByLevel(status.recoverableErrors),
    last_update: status.lastUpdate,
    ...status.v1,
  };
  return `${pythonJson(details, "")}\n`;
}

function pythonString(text: string): string {
  // JSON.stringify escapes like Python except that Python (ensure_ascii) also escapes every non-ASCII unit.
  return JSON.stringify(text).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

function pythonJson(value: unknown, indent: string): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return pythonString(value);
  // json.dumps (allow_nan=True) writes a float past the range, which json.loads made of 1e400, as Infinity.
  if (typeof value === "number" && !Number.isFinite(value)) {
    return Number.isNaN(value) ? "NaN" : value > 0 ? "Infinity" : "-Infinity";
  }
  if (typeof value === "number") return pythonNumber(value);
  if (isPythonFloat(value)) return value.pythonInt ?? pythonNumber(value.pythonFloat, { float: true });
  if (typeof value === "boolean") return value ? "true" : "false";
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[\n${value.map((v) => inner + pythonJson(v, inner)).join(",\n")}\n${indent}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
    comparePythonStrings(a, b),
  );
  if (entries.length === 0) return "{}";
  return `{\n${entries.map(([k, v]) => `${inner}${pythonString(k)}: ${pythonJson(v, inner)}`).join(",\n")}\n${indent}}`;
}
