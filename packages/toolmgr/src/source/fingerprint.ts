import { createHash } from "node:crypto";
import type { Source } from "./source.js";

/**
 * The fingerprint recorded as `tools.source` for a project-local tool: `sha256:` + hex SHA-256 of the canonical
 * JSON of the parsed definition (defaults applied, object keys sorted, arrays in written order). Spelling out a
 * default or reordering keys does not change it; changing anything that affects resolution does.
 */
export function sourceFingerprint(source: Source): string {
  return `sha256:${createHash("sha256").update(canonicalJson(source)).digest("hex")}`;
}

/** JSON with object keys sorted and `undefined` members dropped, so equal definitions hash alike. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
