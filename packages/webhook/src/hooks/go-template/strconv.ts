// Go's strconv quoting over byte strings (go-text.ts): Quote, QuoteToASCII, QuoteRune(ToASCII), CanBackquote,
// Unquote and UnquoteChar (Go 1.19 strconv/quote.go), for string constants in templates and fmt's %q.
import { decodeRune, encodeRune, isPrint } from "./go-text.js";

/** strconv.ErrSyntax, worded as Go's. */
export class ErrSyntax extends Error {
  constructor() {
    super("invalid syntax");
  }
}

const NAMED: Readonly<Record<number, string>> = {
  7: "a",
  8: "b",
  12: "f",
  10: "n",
  13: "r",
  9: "t",
  11: "v",
};
const hex = (n: number, width: number) => n.toString(16).padStart(width, "0");

function escapedRune(r: number, quote: number, asciiOnly: boolean): string {
  if (r === quote || r === 0x5c) return `\\${String.fromCharCode(r)}`;
  if (asciiOnly ? r < 0x80 && isPrint(r) : isPrint(r)) return encodeRune(r);
  const named = NAMED[r];
  if (named !== undefined) return `\\${named}`;
  if (r < 0x20 || r === 0x7f) return `\\x${hex(r, 2)}`;
  const valid = r <= 0x10ffff && !(r >= 0xd800 && r <= 0xdfff);
  const code = valid ? r : 0xfffd;
  return code < 0x10000 ? `\\u${hex(code, 4)}` : `\\U${hex(code, 8)}`;
}

/** strconv.Quote (or QuoteToASCII with `asciiOnly`): a byte string in double quotes. */
export function quote(s: string, asciiOnly = false): string {
  let out = '"';
  for (let i = 0; i < s.length; ) {
    const { code, width } = decodeRune(s, i);
    if (width === 1 && code === 0xfffd) out += `\\x${hex(s.charCodeAt(i), 2)}`;
    else out += escapedRune(code, 0x22, asciiOnly);
    i += width;
  }
  return `${out}"`;
}

/** strconv.QuoteRune (or QuoteRuneToASCII): a rune in single quotes; an invalid rune is U+FFFD. */
export function quoteRune(r: number, asciiOnly = false): string {
  const valid = r >= 0 && r <= 0x10ffff && !(r >= 0xd800 && r <= 0xdfff);
  return `'${escapedRune(valid ? r : 0xfffd, 0x27, asciiOnly)}'`;
}

/** strconv.CanBackquote. */
export function canBackquote(s: string): boolean {
  for (let i = 0; i < s.length; ) {
    const { code, width } = decodeRune(s, i);
    i += width;
    if (width > 1) {
      if (code === 0xfeff) return false;
      continue;
    }
    if (code === 0xfffd) return false;
    if ((code < 0x20 && code !== 0x09) || code === 0x60 || code === 0x7f) return false;
  }
  return true;
}

const unhex = (c: string) => (/^[0-9a-fA-F]$/.test(c) ? Number.parseInt(c, 16) : -1);

/**
 * strconv.UnquoteChar: the first character of `s` (an escape or a literal), as a rune, whether it must be
 * UTF-8-encoded, and the rest.
 *
 * @throws {ErrSyntax}
 */
export function unquoteChar(s: string, q: number): { value: number; multibyte: boolean; tail: string } {
  if (s.length === 0) throw new ErrSyntax();
  const c0 = s.charCodeAt(0);
  if (c0 === q && (q === 0x27 || q === 0x22)) throw new ErrSyntax();
  if (c0 >= 0x80) {
    const { code, width } = decodeRune(s, 0);
    return { value: code, multibyte: true, tail: s.slice(width) };
  }
  if (c0 !== 0x5c) return { value: c0, multibyte: false, tail: s.slice(1) };
  if (s.length <= 1) throw new ErrSyntax();
  const c = s[1] as string;
  let rest = s.slice(2);
  const simple: Record<string, number> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, "\\": 0x5c };
  if (simple[c] !== undefined) return { value: simple[c], multibyte: false, tail: rest };
  if (c === "x" || c === "u" || c === "U") {
    const n = c === "x" ? 2 : c === "u" ? 4 : 8;
    if (rest.length < n) throw new ErrSyntax();
    let v = 0;
    for (let j = 0; j < n; j++) {
      const x = unhex(rest[j] as string);
      if (x < 0) throw new ErrSyntax();
      v = v * 16 + x;
    }
    rest = rest.slice(n);
    if (c === "x") return { value: v, multibyte: false, tail: rest };
    if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) throw new ErrSyntax();
    return { value: v, multibyte: true, tail: rest };
  }
  if (c >= "0" && c <= "7") {
    let v = c.charCodeAt(0) - 0x30;
    if (rest.length < 2) throw new ErrSyntax();
    for (let j = 0; j < 2; j++) {
      const x = rest.charCodeAt(j) - 0x30;
      if (x < 0 || x > 7) throw new ErrSyntax();
      v = (v << 3) | x;
    }
    if (v > 255) throw new ErrSyntax();
    return { value: v, multibyte: false, tail: rest.slice(2) };
  }
  if (c === "'" || c === '"') {
    if (c.charCodeAt(0) !== q) throw new ErrSyntax();
    return { value: q, multibyte: false, tail: rest };
  }
  throw new ErrSyntax();
}

/**
 * strconv.Unquote of a `"…"`, `` `…` `` or `'…'` literal (a byte string), returning the bytes it stands for.
 *
 * @throws {ErrSyntax}
 */
export function unquote(s: string): string {
  if (s.length < 2) throw new ErrSyntax();
  const q = s.charCodeAt(0);
  const end = s.indexOf(s[0] as string, 1);
  if (end < 0) throw new ErrSyntax();
  if (q === 0x60) {
    if (end !== s.length - 1) throw new ErrSyntax();
    return s.slice(1, end).replaceAll("\r", "");
  }
  if (q !== 0x22 && q !== 0x27) throw new ErrSyntax();
  let out = "";
  let rest = s.slice(1);
  while (rest.length > 0 && rest.charCodeAt(0) !== q) {
    if (rest[0] === "\n") throw new ErrSyntax();
    const { value, multibyte, tail } = unquoteChar(rest, q);
    rest = tail;
    out += value < 0x80 || !multibyte ? String.fromCharCode(value) : encodeRune(value);
    if (q === 0x27) break;
  }
  if (!(rest.length > 0 && rest.charCodeAt(0) === q)) throw new ErrSyntax();
  if (rest.length !== 1) throw new ErrSyntax();
  return out;
}
