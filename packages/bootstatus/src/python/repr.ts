import { isPythonFloat, orderedEntries } from "./float.js";

/**
 * Python's float repr: the shortest round-trip digits (as JavaScript's), in positional notation when the decimal
 * exponent is in [-4, 16) and as `d.ddde±XX` otherwise. Integral numbers print as Python ints unless `float`
 * (status.json's `124.0`, kept apart by parseJsonKeepingFloats). Infinities print as `inf`, `-inf` (float repr).
 */
export function pythonNumber(n: number, options: { float: boolean } = { float: false }): string {
  // A literal past the float range (1e400) loads as inf in Python and as Infinity in JSON.parse alike.
  if (!Number.isFinite(n)) return Number.isNaN(n) ? "nan" : n > 0 ? "inf" : "-inf";
  if (!options.float && Number.isInteger(n) && Math.abs(n) < 1e21) return n.toFixed(0);
  const [mantissa = "0", exp = "0"] = n.toExponential().split("e");
  const exponent = Number(exp);
  // -0.0 keeps its sign in Python's repr; toExponential() drops it.
  const negative = mantissa.startsWith("-") || Object.is(n, -0);
  const digits = mantissa.replace("-", "").replace(".", "");
  let text: string;
  if (exponent < -4 || exponent >= 16) {
    const frac = digits.slice(1);
    const sign = exponent < 0 ? "-" : "+";
    text = `${digits[0]}${frac === "" ? "" : `.${frac}`}e${sign}${String(Math.abs(exponent)).padStart(2, "0")}`;
  } else if (exponent < 0) {
    text = `0.${"0".repeat(-exponent - 1)}${digits}`;
  } else if (digits.length > exponent + 1) {
    text = `${digits.slice(0, exponent + 1)}.${digits.slice(exponent + 1)}`;
  } else {
    text = `${digits}${"0".repeat(exponent + 1 - digits.length)}.0`;
  }
  return negative ? `-${text}` : text;
}

// str.isprintable() is false for these categories, except that the ASCII space is printable
// (CPython Objects/unicodectype.c _PyUnicode_IsPrintable).
// Built on first use: compiling this Unicode-property class costs a start about 2 ms, and most runs print no repr().
let notPrintable: RegExp | undefined;

function escapeChar(c: string, quote: string): string {
  if (c === "\\" || c === quote) return `\\${c}`;
  if (c === "\t") return "\\t";
  if (c === "\n") return "\\n";
  if (c === "\r") return "\\r";
  notPrintable ??= /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;
  if (c === " " || !notPrintable.test(c)) return c;
  const code = c.codePointAt(0) ?? 0;
  if (code < 0x100) return `\\x${code.toString(16).padStart(2, "0")}`;
  if (code < 0x10000) return `\\u${code.toString(16).padStart(4, "0")}`;
  return `\\U${code.toString(16).padStart(8, "0")}`;
}

/** Python's repr() of a str (CPython unicode_repr): single quotes unless only double quotes avoid escaping. */
export function pythonStringRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const c of text) out += escapeChar(c, quote);
  return out + quote;
}

/** Python's repr() of a value loaded from JSON (dict, list, str, int, float, True/False/None). */
function pythonRepr(value: unknown): string {
  if (typeof value === "string") return pythonStringRepr(value);
  return pythonStr(value);
}

/**
 * Python's str() of a value loaded from JSON, as an f-string prints it: strings as they are, containers with
 * repr() of their items (`['a', 1]`, `{'k': None}`), numbers as Python prints ints and floats.
 */
export function pythonStr(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number") return pythonNumber(value);
  if (isPythonFloat(value)) return value.pythonInt ?? pythonNumber(value.pythonFloat, { float: true });
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(", ")}]`;
  const entries = orderedEntries(value as Record<string, unknown>);
  return `{${entries.map(([k, v]) => `${pythonStringRepr(k)}: ${pythonRepr(v)}`).join(", ")}}`;
}

/** Python truthiness of a value loaded from JSON. */
export function pythonTruthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === "") return false;
  if (isPythonFloat(value)) return value.pythonFloat !== 0;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return true;
}

/** Python's ordering of str (by code point), which differs from JavaScript's UTF-16 order above U+D7FF. */
export function comparePythonStrings(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = (x[i]?.codePointAt(0) ?? 0) - (y[i]?.codePointAt(0) ?? 0);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}
