/**
 * Go's `url.ParseQuery` (Go ≥ 1.17, as Debian's webhook is built): pairs split on `&`; a pair containing `;` or an
 * invalid `%` escape is skipped and reported; `+` is a space; empty pairs are skipped. Returns the first value per
 * key (upstream keeps only that one) and the first error, if any. Upstream drops the whole form payload on an error,
 * but keeps the other pairs of a URL query (`URL.Query()` ignores the error).
 */
export function goParseQuery(text: string): { values: Record<string, string>; error?: string } {
  const values: Record<string, string> = Object.create(null) as Record<string, string>;
  if (text === "") return { values };
  let error: string | undefined;
  for (const pair of text.split("&")) {
    if (pair.includes(";")) {
      error ??= "invalid semicolon separator in query";
      continue;
    }
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const key = queryUnescape(eq < 0 ? pair : pair.slice(0, eq));
    const value = queryUnescape(eq < 0 ? "" : pair.slice(eq + 1));
    if (typeof key !== "string") {
      error ??= key.error;
      continue;
    }
    if (typeof value !== "string") {
      error ??= value.error;
      continue;
    }
    if (!Object.hasOwn(values, key)) values[key] = value;
  }
  return error === undefined ? { values } : { values, error };
}

/** Go's `url.QueryUnescape`: a string, or (as an object) Go's `invalid URL escape "%zz"` error. */
function queryUnescape(s: string): string | { error: string } {
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (c === "%") {
      const hex = s.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex))
        return { error: `invalid URL escape ${JSON.stringify(s.slice(i, i + 3))}` };
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else if (c === "+") bytes.push(0x20);
    else {
      // By code point: the two halves of a character past U+FFFF (an emoji) are one character, not two U+FFFDs.
      const point = s.codePointAt(i) as number;
      bytes.push(...Buffer.from(String.fromCodePoint(point), "utf8"));
      if (point > 0xffff) i++;
    }
  }
  return Buffer.from(bytes).toString("utf8");
}
