/**
 * Go's `%q` of a string (`strconv.Quote`): double quotes, `\a\b\f\n\r\t\v`, `\\` and `\"` escaped, other control
 * characters and DEL as `\x..`, printable Unicode kept. Upstream's error texts quote tokens this way, so a CRLF body
 * reports `got "1\r"`.
 */
export function goQuote(text: string): string {
  return `"${escapeGo(text, '"')}"`;
}

/** Go's `%q` of a byte or rune: single quotes, same escapes (`'1'`, `'\n'`). */
export function goQuoteRune(char: string): string {
  return `'${escapeGo(char, "'")}'`;
}

const NAMED: Record<string, string> = {
  "\x07": "\\a",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\v": "\\v",
  "\\": "\\\\",
};

function escapeGo(text: string, quote: string): string {
  let out = "";
  for (const c of text) {
    const named = NAMED[c];
    if (named !== undefined) out += named;
    else if (c === quote) out += `\\${c}`;
    else {
      const code = c.codePointAt(0) ?? 0;
      if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, "0")}`;
      else if (code >= 0x80 && code < 0xa0) out += `\\u${code.toString(16).padStart(4, "0")}`;
      else out += c;
    }
  }
  return out;
}
