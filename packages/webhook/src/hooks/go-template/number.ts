// A number constant of a template, read as Go 1.19's parse.(*Tree).newNumber reads it: char constants, complex
// numbers, integers (strconv.ParseInt/ParseUint with base 0: 0x, 0o, 0b, leading-0 octal, underscores) and
// floats (strconv.ParseFloat: decimal and hexadecimal).

import { goParseInt, goParseUint, underscoreOK } from "../../go-parse-int.js";
import type { NumberNode } from "./nodes.js";
import { quote, unquoteChar } from "./strconv.js";

/** strconv.ParseUint(s, 0, 64) without a sign; undefined on any error. */
function parseUnsigned(s: string): bigint | undefined {
  const n = goParseUint(s);
  return typeof n === "bigint" ? n : undefined;
}

/** strconv.ParseInt(s, 0, 64); undefined on any error. */
function parseInt64(s: string): bigint | undefined {
  const n = goParseInt(s);
  return typeof n === "bigint" ? n : undefined;
}

/** strconv.ParseFloat(s, 64): the value, or the reason Go gives for refusing it (its NumError's Err). */
function parseFloat64OrError(text: string): number | "invalid syntax" | "value out of range" {
  if (text.includes("_") && !underscoreOK(text)) return "invalid syntax";
  const s = text.replaceAll("_", "");
  const m = /^([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?[0-9]+)$/.exec(s);
  let value: number;
  if (m) {
    const [, sign, int = "", frac = "", exp = "0"] = m;
    if (int === "" && frac === "") return "invalid syntax";
    const mantissa = BigInt(`0x${int}${frac}` === "0x" ? "0" : `0x${int}${frac}`);
    value = Number(mantissa) * 2 ** (Number(exp) - 4 * frac.length);
    if (sign === "-") value = -value;
  } else {
    if (!/^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/.test(s)) return "invalid syntax";
    value = Number(s);
  }
  return Number.isFinite(value) ? value : "value out of range";
}

/** strconv.ParseFloat(s, 64): undefined on a syntax error or when the value overflows (ErrRange). */
export function parseFloat64(text: string): number | undefined {
  const f = parseFloat64OrError(text);
  return typeof f === "number" ? f : undefined;
}

/**
 * fmt.Sscan of a complex constant `a+bi` (itemComplex), as fmt/scan.go's complexTokens and floatToken split it (the
 * real part ends where a float's characters end: `0b1+1i` has none past `0`) and convertFloat reads each part.
 *
 * @throws {Error} with fmt's or strconv's message (`syntax error scanning complex number`, `strconv.ParseFloat: …`)
 */
function parseComplex(text: string): { re: number; im: number } {
  let i = 0;
  const accept = (chars: string) => i < text.length && chars.includes(text[i] as string) && ++i > 0;
  const floatToken = () => {
    const start = i;
    accept("+-");
    let digits = "0123456789_";
    let exp = "eEpP";
    if (accept("0") && accept("xX")) {
      digits = "0123456789aAbBcCdDeEfF_";
      exp = "pP";
    }
    while (accept(digits));
    if (accept(".")) while (accept(digits));
    if (accept(exp)) {
      accept("+-");
      while (accept("0123456789_"));
    }
    return text.slice(start, i);
  };
  const real = floatToken();
  const signAt = i;
  if (!accept("+-")) throw new Error("syntax error scanning complex number");
  const imag = text[signAt] + floatToken();
  if (!accept("i")) throw new Error("syntax error scanning complex number");
  const [re, im] = [real, imag].map((part) => {
    const f = parseFloat64OrError(part);
    if (typeof f === "number") return f;
    throw new Error(`strconv.ParseFloat: parsing ${quote(part)}: ${f}`);
  }) as [number, number];
  return { re, im };
}

/** Whether a float64 converts to an int64/uint64 and back unchanged, as Go's `float64(int64(f)) == f`. */
const fitsInt64 = (f: number) => Number.isInteger(f) && f >= -(2 ** 63) && f < 2 ** 63;
const fitsUint64 = (f: number) => Number.isInteger(f) && f >= 0 && f < 2 ** 64;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * Reads a number, char or complex constant.
 *
 * @throws {Error} with Go's message (`integer overflow: "08"`, `illegal number syntax: "1e400"`, `invalid syntax`)
 */
export function newNumber(
  pos: number,
  text: string,
  kind: "number" | "charConstant" | "complex",
): NumberNode {
  const n: Mutable<NumberNode> = {
    type: "number",
    pos,
    text,
    isInt: false,
    isUint: false,
    isFloat: false,
    isComplex: false,
    int64: 0n,
    uint64: 0n,
    float64: 0,
    complex: { re: 0, im: 0 },
  };
  const simplifyComplex = () => {
    n.isFloat = n.complex.im === 0;
    if (n.isFloat) {
      n.float64 = n.complex.re;
      n.isInt = fitsInt64(n.float64);
      if (n.isInt) n.int64 = BigInt(n.float64);
      n.isUint = fitsUint64(n.float64);
      if (n.isUint) n.uint64 = BigInt(n.float64);
    }
  };
  if (kind === "charConstant") {
    const { value, tail } = unquoteChar(text.slice(1), text.charCodeAt(0));
    if (tail !== "'") throw new Error(`malformed character constant: ${text}`);
    return {
      ...n,
      isInt: true,
      isUint: true,
      isFloat: true,
      int64: BigInt(value),
      uint64: BigInt(value),
      float64: value,
    };
  }
  if (kind === "complex") {
    n.isComplex = true;
    n.complex = parseComplex(text);
    simplifyComplex();
    return n;
  }
  if (text.endsWith("i")) {
    const f = parseFloat64(text.slice(0, -1));
    if (f !== undefined) {
      n.isComplex = true;
      n.complex = { re: 0, im: f };
      simplifyComplex();
      return n;
    }
  }
  const u = text[0] === "+" || text[0] === "-" ? undefined : parseUnsigned(text);
  if (u !== undefined) {
    n.isUint = true;
    n.uint64 = u;
  }
  const i = parseInt64(text);
  if (i !== undefined) {
    n.isInt = true;
    n.int64 = i;
    if (i === 0n) {
      n.isUint = true; // in case of -0.
      n.uint64 = u ?? 0n;
    }
  }
  if (n.isInt) {
    n.isFloat = true;
    n.float64 = Number(n.int64);
  } else if (n.isUint) {
    n.isFloat = true;
    n.float64 = Number(n.uint64);
  } else {
    const f = parseFloat64(text);
    if (f !== undefined) {
      if (!/[.eEpP]/.test(text)) throw new Error(`integer overflow: ${JSON.stringify(text)}`);
      n.isFloat = true;
      n.float64 = f;
      if (fitsInt64(f)) {
        n.isInt = true;
        n.int64 = BigInt(f);
      }
      if (fitsUint64(f)) {
        n.isUint = true;
        n.uint64 = BigInt(f);
      }
    }
  }
  if (!n.isInt && !n.isUint && !n.isFloat) throw new Error(`illegal number syntax: ${JSON.stringify(text)}`);
  return n;
}
