/**
 * A JSON number written with a fraction or exponent whose value is integral (`124.0`, `1e2`). Python's json
 * module loads it as a float and prints it back as `124.0`; JavaScript's JSON.parse makes it the integer 124,
 * so status.json is parsed with these kept apart to reprint cloud-init's JSON byte for byte.
 */
export interface PythonFloat {
  readonly pythonFloat: number;
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

/**
 * JSON.parse, except that integral numbers written as floats become PythonFloat values. Throws SyntaxError
 * like JSON.parse on invalid JSON.
 */
export function parseJsonKeepingFloats(text: string): unknown {
  let out = "";
  let last = 0;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      // Skip the string, escapes included.
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === "\\") i++;
      continue;
    }
    if (c === "[" || c === "{") {
      if (++depth > MAX_JSON_DEPTH) throw new SyntaxError(`nested deeper than ${MAX_JSON_DEPTH} levels`);
      continue;
    }
    if (c === "]" || c === "}") {
      depth--;
      continue;
    }
    if (c !== "-" && (c === undefined || c < "0" || c > "9")) continue;
    NUMBER.lastIndex = i;
    const match = NUMBER.exec(text);
    if (match === null) continue;
    const token = match[0];
    if ((match[1] !== undefined || match[2] !== undefined) && Number.isInteger(Number(token))) {
      out += `${text.slice(last, i)}{${MARK_JSON}:${token}}`;
      last = i + token.length;
    }
    i += token.length - 1;
  }
  out += text.slice(last);
  return JSON.parse(out, (_key, value: unknown) => {
    if (typeof value === "object" && value !== null && Object.hasOwn(value, MARK)) {
      return { pythonFloat: Number((value as Record<string, unknown>)[MARK]) } satisfies PythonFloat;
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
