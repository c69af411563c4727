import { isLosslessNumber } from "lossless-json";

/**
 * Serialises a value as Go's `json.Marshal` does for `map[string]interface{}`: compact, object keys sorted, `<`, `>`,
 * `&`, U+2028 and U+2029 escaped, numbers as their literal source text (decoded with `UseNumber`). Upstream renders
 * objects passed to commands and `entire-*` sources this way (research §5).
 */
export function goMarshal(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (isLosslessNumber(value)) return value.value;
  if (typeof value === "string") return goString(value);
  if (typeof value === "number") return String(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (Array.isArray(value)) return `[${value.map(goMarshal).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
  return `{${entries.map(([k, v]) => `${goString(k)}:${goMarshal(v)}`).join(",")}}`;
}

function goString(s: string): string {
  return JSON.stringify(s).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** Renders a request value as upstream's `fmt.Sprintf("%v")` path does: strings as is, null as `<nil>`, objects as JSON. */
export function renderValue(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "<nil>";
  if (isLosslessNumber(value)) return value.value;
  if (typeof value === "boolean" || typeof value === "number") return String(value);
  return goMarshal(value);
}
