const STRUCT = Symbol("go struct");

/**
 * Marks an object as a Go struct: `goJson` keeps its fields in the order written (Go encodes struct fields in
 * declaration order, and only map keys sorted).
 */
export function goStruct<T extends object>(fields: T): T {
  Object.defineProperty(fields, STRUCT, { value: true, enumerable: false });
  return fields;
}

/**
 * JSON as Go's `encoding/json` writes the API's values: map keys sorted, struct fields (`goStruct`) in order, `<`,
 * `>`, `&`, U+2028 and U+2029 escaped as `\u003c`… (HTML-safe by default), no whitespace. Arrays keep their order.
 */
export function goJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)).replace(/[<>&\u2028\u2029]/g, (c) => {
    return `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`;
  });
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  const keys = Object.keys(value);
  if (!(STRUCT in value)) keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const key of keys) {
    out[key] = sortKeys((value as Record<string, unknown>)[key]);
  }
  return out;
}
