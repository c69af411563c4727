// Go's encoding/json output (encode.go): what both upstreams send as JSON and webhook passes to commands.

const STRUCT = Symbol("go struct");

/**
 * Marks an object as a Go struct: `goMarshal` keeps its fields in the order written, as Go encodes struct fields in
 * declaration order and sorts only map keys.
 */
export function goStruct<T extends object>(fields: T): T {
  Object.defineProperty(fields, STRUCT, { value: true, enumerable: false });
  return fields;
}

/** Options of `goMarshal`. */
export interface GoMarshalOptions {
  /**
   * Returns the JSON text of a value the encoder does not know (a number kept as its source text, as Go's
   * `json.Number`), or undefined to encode it as usual.
   */
  literal?: (value: unknown) => string | undefined;
}

// Go sorts map keys by their UTF-8 bytes; JavaScript's `<` compares UTF-16 units, which orders characters past
// U+FFFF before U+E000–U+FFFF. Only non-ASCII keys need the byte comparison.
function compareKeys(a: string, b: string): number {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range is the point
  if (/^[\x00-\x7f]*$/.test(a) && /^[\x00-\x7f]*$/.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

// encoding/json escapes <, > and & (HTMLEscape is on by default) and U+2028/U+2029 (for JSONP), and writes an
// invalid UTF-16 unit (which a Go string cannot hold) as the replacement character. An escaped backslash is matched
// first, so the text `\ud800` (a backslash, then letters) stays text.
function goString(text: string): string {
  return JSON.stringify(text).replace(/\\\\|[<>&\u2028\u2029]|\\ud[89a-f][0-9a-f]{2}/g, (c) =>
    c === "\\\\"
      ? c
      : c.startsWith("\\")
        ? "\\ufffd"
        : `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`,
  );
}

function encode(value: unknown, options: GoMarshalOptions): string {
  const literal = options.literal?.(value);
  if (literal !== undefined) return literal;
  if (value === null || value === undefined) return "null";
  switch (typeof value) {
    case "string":
      return goString(value);
    case "number":
      // Go refuses NaN and ±Inf (json.UnsupportedValueError); callers never hand them over.
      return Number.isFinite(value) ? JSON.stringify(value) : "null";
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      return value.toString();
    case "object":
      break;
    default:
      return "null";
  }
  if (Array.isArray(value)) return `[${value.map((v) => encode(v, options)).join(",")}]`;
  // A JavaScript value with its own JSON form (a Date) is encoded as that form, as JSON.stringify would.
  const own = (value as { toJSON?: () => unknown }).toJSON;
  if (typeof own === "function") return encode(own.call(value), options);
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).filter((k) => record[k] !== undefined);
  if (!(STRUCT in record)) keys.sort(compareKeys);
  return `{${keys.map((k) => `${goString(k)}:${encode(record[k], options)}`).join(",")}}`;
}

/**
 * JSON as Go's `json.Marshal` writes it: compact, map keys sorted by their bytes, struct fields (`goStruct`) in
 * order, `<`, `>`, `&`, U+2028 and U+2029 escaped as `\u003c`…, arrays in order.
 *
 * @example goMarshal({ b: 1, a: "<x>" }) // => '{"a":"\\u003cx\\u003e","b":1}'
 */
export function goMarshal(value: unknown, options: GoMarshalOptions = {}): string {
  return encode(value, options);
}
