/**
 * A JSON number written with a fraction or exponent whose value is integral (`124.0`, `1e2`). Python's json
 * module loads it as a float and prints it back as `124.0`; JavaScript's JSON.parse makes it the integer 124,
 * so status.json is parsed with these kept apart to reprint cloud-init's JSON byte for byte.
 */
export interface PythonFloat {
  readonly pythonFloat: number;
  /**
   * Set for an integer past 2^53 instead (`9007199254740993`): Python's int keeps every digit, a JavaScript
   * number does not, so the digits as written are kept for printing and `pythonFloat` holds the nearest number.
   */
  readonly pythonInt?: string;
}

/** True for the values parseJsonKeepingFloats() makes of integral floats. */
export function isPythonFloat(value: unknown): value is PythonFloat {
  return (
    typeof value === "object" && value !== null && typeof (value as PythonFloat).pythonFloat === "number"
  );
}

// A key no real status.json uses; the wrapper object is replaced by the reviver before anyone sees it.
const MARK = "\u0000pythonFloat";
const MARK_JSON = JSON.stringify(MARK);

/**
 * The deepest nesting of arrays and objects accepted. Python's json stops near its recursion limit (1000) too; the
 * bound keeps every recursive walk of the parsed value (printing, str()) at a depth the input cannot raise.
 */
export const MAX_JSON_DEPTH = 1000;

// A JSON number at lastIndex (sticky: no copy of the rest of the text per number).
const NUMBER = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y;

// Objects whose keys JavaScript would reorder (integer-like keys come first in any JS object), with the file's
// order; the marker property that carries it through JSON.parse is removed by the reviver.
const KEY_ORDER = new WeakMap<object, string[]>();
const ORDER_MARK = "\u0000keyOrder";
const ARRAY_INDEX = /^(0|[1-9]\d*)$/;

function isArrayIndex(key: string): boolean {
  return ARRAY_INDEX.test(key) && Number(key) < 4294967295;
}

/**
 * The keys of an object parsed by parseJsonKeepingFloats in the order of the file, as Python's dict keeps them
 * (a JavaScript object lists integer-like keys such as "10" first); Object.keys() for any other object.
 */
export function orderedKeys(value: object): string[] {
  return KEY_ORDER.get(value) ?? Object.keys(value);
}

/** orderedKeys() with the values. */
export function orderedEntries(value: Record<string, unknown>): [string, unknown][] {
  return orderedKeys(value).map((key) => [key, value[key]]);
}

/**
 * JSON.parse, except that integral numbers written as floats (and integers past 2^53) become PythonFloat values, and objects with
 * integer-like keys remember the file's key order (orderedKeys). Throws SyntaxError like JSON.parse on invalid JSON.
 */
export function parseJsonKeepingFloats(text: string): unknown {
  const parts: string[] = [];
  let last = 0;
  // Open containers: an object's placeholder part (for its order marker) and its keys as written, or null for an array.
  const open: ({ part: number; keys: string[] } | null)[] = [];
  const orders: string[][] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      // Skip the string, escapes included; followed by ':' it is a key of the innermost object.
      const from = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === "\\") i++;
      let next = i + 1;
      while (text[next] === " " || text[next] === "\n" || text[next] === "\r" || text[next] === "\t") next++;
      const top = open.at(-1);
      if (text[next] === ":" && top) top.keys.push(text.slice(from, i + 1));
      continue;
    }
    if (c === "[" || c === "{") {
      if (open.length >= MAX_JSON_DEPTH) throw new SyntaxError(`nested deeper than ${MAX_JSON_DEPTH} levels`);
      if (c === "[") {
        open.push(null);
        continue;
      }
      parts.push(text.slice(last, i + 1), "");
      last = i + 1;
      open.push({ part: parts.length - 1, keys: [] });
      continue;
    }
    if (c === "]" || c === "}") {
      const closed = open.pop();
      // Only a key starting with a digit (or escaped) can be integer-like: most objects need no decoding.
      if (closed?.keys.some((k) => k.includes("\\") || (k[1] !== undefined && k[1] >= "0" && k[1] <= "9"))) {
        const decode = (k: string): string => (k.includes("\\") ? (JSON.parse(k) as string) : k.slice(1, -1));
        const keys = [...new Set(closed.keys.map(decode))];
        if (keys.some(isArrayIndex)) {
          parts[closed.part] = `${JSON.stringify(ORDER_MARK)}:${orders.length},`;
          orders.push(keys);
        }
      }
      continue;
    }
    if (c !== "-" && (c === undefined || c < "0" || c > "9")) continue;
    NUMBER.lastIndex = i;
    const match = NUMBER.exec(text);
    if (match === null) continue;
    const token = match[0];
    const floatSyntax = match[1] !== undefined || match[2] !== undefined;
    if (floatSyntax ? Number.isInteger(Number(token)) : !Number.isSafeInteger(Number(token))) {
      // An integral float goes through as a number, an integer too big for one as its digits (a string).
      parts.push(`${text.slice(last, i)}{${MARK_JSON}:${floatSyntax ? token : JSON.stringify(token)}}`);
      last = i + token.length;
    }
    i += token.length - 1;
  }
  parts.push(text.slice(last));
  return JSON.parse(parts.join(""), (_key, value: unknown) => {
    if (typeof value !== "object" || value === null) return value;
    if (Object.hasOwn(value, MARK)) {
      const raw = (value as Record<string, unknown>)[MARK];
      if (typeof raw === "string") return { pythonFloat: Number(raw), pythonInt: raw } satisfies PythonFloat;
      return { pythonFloat: Number(raw) } satisfies PythonFloat;
    }
    if (Object.hasOwn(value, ORDER_MARK)) {
      const record = value as Record<string, unknown>;
      const order = orders[Number(record[ORDER_MARK])];
      delete record[ORDER_MARK];
      if (order !== undefined) KEY_ORDER.set(value, order);
    }
    return value;
  });
}

const NON_FINITE_MARK = "\u0000pythonNonFinite";
const NON_FINITE = /-?Infinity|NaN/y;

/**
 * JSON as Python's json.dumps writes it (allow_nan, its default): also `NaN`, `Infinity` and `-Infinity` as bare
 * words, which `cloud-init status --format json` prints for a status.json number past the float range (1e400).
 * Throws SyntaxError like JSON.parse on anything else that is not JSON.
 */
export function parsePythonJson(text: string): unknown {
  let out = "";
  let last = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === "\\") i++;
      continue;
    }
    NON_FINITE.lastIndex = i;
    const match = NON_FINITE.exec(text);
    if (match === null) continue;
    out += `${text.slice(last, i)}{${JSON.stringify(NON_FINITE_MARK)}:${JSON.stringify(match[0])}}`;
    last = i + match[0].length;
    i = last - 1;
  }
  out += text.slice(last);
  return JSON.parse(out, (_key, value: unknown) => {
    if (typeof value === "object" && value !== null && Object.hasOwn(value, NON_FINITE_MARK)) {
      return Number((value as Record<string, unknown>)[NON_FINITE_MARK]);
    }
    return value;
  });
}
