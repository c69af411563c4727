// A request's header values as the handler reads them: decoded from the bytes that came, gathered by name.

const NON_ASCII = /[\x80-\xff]/;

/**
 * Header values as the text their bytes spell: the readers hand them over as latin1 (one char per byte), while Go
 * passes the bytes on as they came, so a UTF-8 value (`X-Author: José`) reaches commands, rules and logs as sent.
 * Bytes that are not UTF-8 become U+FFFD (README "Differences that remain").
 */
export function utf8HeaderValues(rawHeaders: readonly string[]): readonly string[] {
  let decoded: string[] | undefined;
  for (let i = 1; i < rawHeaders.length; i += 2) {
    const value = rawHeaders[i] as string;
    if (!NON_ASCII.test(value)) continue;
    decoded ??= [...rawHeaders];
    decoded[i] = Buffer.from(value, "latin1").toString("utf8");
  }
  return decoded ?? rawHeaders;
}

/** Every value of each header, under its lower-cased name (callers take `[0]`, as Go's `Header.Get`). */
export function headerValues(rawHeaders: readonly string[]): Record<string, string[]> {
  // No prototype: a header named `Constructor` or `__proto__` is a header like any other, not Object.prototype's.
  const headers: Record<string, string[]> = Object.create(null);
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] as string).toLowerCase();
    const values = headers[name] ?? [];
    values.push(rawHeaders[i + 1] as string);
    headers[name] = values;
  }
  return headers;
}
