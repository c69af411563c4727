// Go's strconv.Quote and strconv.QuoteRune (strconv/quote.go appendQuotedWith / appendEscapedRune): the `%q` verb
// both upstreams use in their error texts and log lines.

const NAMED: Readonly<Record<number, string>> = {
  7: "\\a",
  8: "\\b",
  12: "\\f",
  10: "\\n",
  13: "\\r",
  9: "\\t",
  11: "\\v",
  92: "\\\\",
};

// unicode.IsPrint: categories L, M, N, P, S and the ASCII space (other spaces are not printable).
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

function hex(value: number, width: number): string {
  return value.toString(16).padStart(width, "0");
}

function escapeRune(code: number, quote: number): string {
  if (code === quote) return `\\${String.fromCodePoint(code)}`;
  const named = NAMED[code];
  if (named !== undefined) return named;
  if (code === 0x20) return " ";
  if (code < 0x20 || code === 0x7f) return `\\x${hex(code, 2)}`;
  // A lone surrogate is not a valid rune: Go writes utf8.RuneError for it.
  if (code >= 0xd800 && code <= 0xdfff) return "\\ufffd";
  const char = String.fromCodePoint(code);
  if (code >= 0x80 && PRINTABLE.test(char)) return char;
  if (code < 0x80 && code > 0x20 && code !== 0x7f) return char;
  return code < 0x10000 ? `\\u${hex(code, 4)}` : `\\U${hex(code, 8)}`;
}

function quoteString(text: string, quote: number): string {
  let out = "";
  for (const char of text) out += escapeRune(char.codePointAt(0) ?? 0, quote);
  return out;
}

/** Decodes one UTF-8 sequence at `i`: the rune and its width, or undefined for a byte that starts no valid rune. */
function decodeRune(bytes: Uint8Array, i: number): { code: number; width: number } | undefined {
  const b0 = bytes[i] ?? 0;
  if (b0 < 0x80) return { code: b0, width: 1 };
  const width = b0 >= 0xf0 && b0 <= 0xf4 ? 4 : b0 >= 0xe0 ? (b0 <= 0xef ? 3 : 0) : b0 >= 0xc2 ? 2 : 0;
  if (width === 0 || i + width > bytes.length) return undefined;
  let code = b0 & (0xff >> (width + 1));
  for (let k = 1; k < width; k++) {
    const b = bytes[i + k] ?? 0;
    if ((b & 0xc0) !== 0x80) return undefined;
    code = (code << 6) | (b & 0x3f);
  }
  const min = width === 2 ? 0x80 : width === 3 ? 0x800 : 0x10000;
  if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return undefined;
  return { code, width };
}

function quoteBytes(bytes: Uint8Array, quote: number): string {
  let out = "";
  for (let i = 0; i < bytes.length; ) {
    const rune = decodeRune(bytes, i);
    if (rune === undefined) {
      // An invalid UTF-8 byte is written as `\x..`, one byte at a time (strconv/quote.go).
      out += `\\x${hex(bytes[i] ?? 0, 2)}`;
      i += 1;
      continue;
    }
    out += escapeRune(rune.code, quote);
    i += rune.width;
  }
  return out;
}

/**
 * Go's `strconv.Quote` (the `%q` verb): double quotes; `\a\b\f\n\r\t\v`, `\\` and `\"` escaped; other control
 * characters and DEL as `\x..`; characters Go does not print (`unicode.IsPrint`) as `\u....` or `\U........`.
 * Given bytes, an invalid UTF-8 byte is written as `\x..`, as Go does for a string holding it.
 *
 * @example goQuote("1\r") // => "\"1\\r\""
 */
export function goQuote(text: string | Uint8Array): string {
  const body = typeof text === "string" ? quoteString(text, 0x22) : quoteBytes(text, 0x22);
  return `"${body}"`;
}

/** Go's `strconv.QuoteRune` (`%q` of a byte or rune): single quotes, the same escapes (`'1'`, `'\n'`, `'\''`). */
export function goQuoteRune(char: string): string {
  return `'${quoteString(char, 0x27)}'`;
}
