// Go strings are bytes: `len`, `slice`, `index` and fmt's widths count bytes or runes decoded from them, and a slice
// may cut a rune in two. The template engine keeps every Go string as a "byte string": a JS string whose chars are
// the bytes (0-255), converted from and to UTF-8 only at its edges.

import { newerThanUnicode13 } from "./unicode13.js";

/** The bytes of a UTF-8 JS string, one char per byte. */
export function toBytes(text: string): string {
  return Buffer.from(text, "utf8").toString("latin1");
}

/** A byte string back to text; bytes that are not UTF-8 become U+FFFD, as when the output is read as UTF-8. */
export function fromBytes(bytes: string): string {
  return Buffer.from(bytes, "latin1").toString("utf8");
}

/** The UTF-8 encoding of a rune as a byte string (utf8.EncodeRune; an invalid rune becomes U+FFFD). */
export function encodeRune(code: number): string {
  const valid = code >= 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
  return toBytes(String.fromCodePoint(valid ? code : 0xfffd));
}

/** utf8.DecodeRuneInString at `i`: the rune and its width; an invalid byte is U+FFFD of width 1. */
export function decodeRune(s: string, i: number): { code: number; width: number } {
  const b0 = s.charCodeAt(i);
  if (b0 < 0x80) return { code: b0, width: 1 };
  const width =
    b0 >= 0xc2 && b0 <= 0xdf ? 2 : b0 >= 0xe0 && b0 <= 0xef ? 3 : b0 >= 0xf0 && b0 <= 0xf4 ? 4 : 0;
  if (width === 0 || i + width > s.length) return { code: 0xfffd, width: 1 };
  let code = b0 & (0xff >> (width + 1));
  for (let k = 1; k < width; k++) {
    const b = s.charCodeAt(i + k);
    if ((b & 0xc0) !== 0x80) return { code: 0xfffd, width: 1 };
    code = (code << 6) | (b & 0x3f);
  }
  const min = width === 2 ? 0x80 : width === 3 ? 0x800 : 0x10000;
  if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return { code: 0xfffd, width: 1 };
  return { code, width };
}

/** utf8.DecodeLastRuneInString before `end`: the width of the rune that ends there. */
export function lastRuneWidth(s: string, end: number): number {
  for (let start = end - 1; start >= Math.max(0, end - 4); start--) {
    if ((s.charCodeAt(start) & 0xc0) !== 0x80) {
      return decodeRune(s, start).width === end - start ? end - start : 1;
    }
  }
  return 1;
}

/** utf8.RuneCountInString. */
export function runeCount(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i += decodeRune(s, i).width) n++;
  return n;
}

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

/** unicode.IsPrint of Go 1.19 (Unicode 13.0.0): letters, marks, numbers, punctuation, symbols and the ASCII space. */
export function isPrint(code: number): boolean {
  if (code === 0x20) return true;
  if (code < 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return false;
  return PRINTABLE.test(String.fromCodePoint(code)) && !newerThanUnicode13(code);
}

const LETTER = /^\p{L}$/u;
const DIGIT = /^\p{Nd}$/u;

/** unicode.IsLetter. */
export function isLetter(code: number): boolean {
  return (
    code >= 0 && code <= 0x10ffff && LETTER.test(String.fromCodePoint(code)) && !newerThanUnicode13(code)
  );
}

/** unicode.IsDigit. */
export function isDigit(code: number): boolean {
  return code >= 0 && code <= 0x10ffff && DIGIT.test(String.fromCodePoint(code)) && !newerThanUnicode13(code);
}

/** Go's `%#U` of a rune, as the lexer's errors print it: `U+0027 '''`. */
export function formatRuneU(code: number): string {
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
  return isPrint(code) ? `${hex} '${encodeRune(code)}'` : hex;
}
