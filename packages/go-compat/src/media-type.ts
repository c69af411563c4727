/**
 * Go's `mime.ParseMediaType` (mime/mediatype.go), which net/http uses to find a multipart boundary and
 * mime/multipart uses to read a part's `Content-Disposition`: the type lower-cased and checked as `token[/token]`,
 * parameters `; name=value` with token or quoted-string values, names lower-cased, a repeated name an error unless
 * its value is the same, a lone trailing `;` allowed, and RFC 2231 `name*` / `name*0` continuations stitched.
 */
export function parseMediaType(
  value: string,
): { readonly type: string; readonly params: ReadonlyMap<string, string> } | { readonly error: string } {
  const semi = value.indexOf(";");
  const base = semi < 0 ? value : value.slice(0, semi);
  const type = base.toLowerCase().trim();
  const typeError = checkMediaType(type);
  if (typeError !== undefined) return { error: typeError };

  const params = new Map<string, string>();
  // Base name → (parameter name → value), for the names holding a `*`.
  const continuation = new Map<string, Map<string, string>>();
  let rest = value.slice(base.length);
  while (rest.length > 0) {
    rest = trimLeftSpace(rest);
    if (rest.length === 0) break;
    const param = consumeMediaParam(rest);
    if (param === undefined) {
      // Trailing semicolons are not an error.
      if (rest.trim() === ";") break;
      return { error: "mime: invalid media parameter" };
    }
    const star = param.name.indexOf("*");
    let target = params;
    if (star >= 0) {
      const baseName = param.name.slice(0, star);
      target = continuation.get(baseName) ?? new Map();
      continuation.set(baseName, target);
    }
    const seen = target.get(param.name);
    if (seen !== undefined && seen !== param.value) return { error: "mime: duplicate parameter name" };
    target.set(param.name, param.value);
    rest = param.rest;
  }
  for (const [key, pieces] of continuation) {
    const single = pieces.get(`${key}*`);
    if (single !== undefined) {
      const decoded = decode2231(single);
      if (decoded !== undefined) params.set(key, decoded);
      continue;
    }
    let joined = "";
    let valid = false;
    for (let n = 0; ; n++) {
      const plain = pieces.get(`${key}*${n}`);
      if (plain !== undefined) {
        valid = true;
        joined += plain;
        continue;
      }
      const encoded = pieces.get(`${key}*${n}*`);
      if (encoded === undefined) break;
      valid = true;
      if (n === 0) joined += decode2231(encoded) ?? "";
      else joined += percentUnescape(encoded) ?? "";
    }
    if (valid) params.set(key, joined);
  }
  return { type, params };
}

const TSPECIALS = '()<>@,;:\\"/[]?=';

function isTokenChar(c: string): boolean {
  const code = c.charCodeAt(0);
  return code > 0x20 && code < 0x7f && !TSPECIALS.includes(c);
}

/** Go's `strings.TrimLeftFunc(s, unicode.IsSpace)` for the characters a header can hold. */
function trimLeftSpace(s: string): string {
  return s.replace(/^[\t\n\v\f\r \u0085\u00a0]+/, "");
}

function consumeToken(s: string): [token: string, rest: string] {
  let i = 0;
  while (i < s.length && isTokenChar(s.charAt(i))) i++;
  return [s.slice(0, i), s.slice(i)];
}

function checkMediaType(s: string): string | undefined {
  const [type, rest] = consumeToken(s);
  if (type === "") return "mime: no media type";
  if (rest === "") return undefined;
  if (!rest.startsWith("/")) return "mime: expected slash after first token";
  const [subtype, after] = consumeToken(rest.slice(1));
  if (subtype === "") return "mime: expected token after slash";
  if (after !== "") return "mime: unexpected content after media subtype";
  return undefined;
}

/** A token, or a quoted-string where `\` escapes only tspecials (MSIE sends `C:\dir\file` unescaped). */
function consumeValue(s: string): [value: string, rest: string] {
  if (s === "") return ["", ""];
  if (s[0] !== '"') return consumeToken(s);
  let out = "";
  for (let i = 1; i < s.length; i++) {
    const c = s.charAt(i);
    if (c === '"') return [out, s.slice(i + 1)];
    if (c === "\\" && i + 1 < s.length && TSPECIALS.includes(s.charAt(i + 1))) {
      out += s.charAt(i + 1);
      i++;
      continue;
    }
    if (c === "\r" || c === "\n") return ["", s];
    out += c;
  }
  return ["", s];
}

function consumeMediaParam(s: string): { name: string; value: string; rest: string } | undefined {
  let rest = trimLeftSpace(s);
  if (!rest.startsWith(";")) return undefined;
  rest = trimLeftSpace(rest.slice(1));
  const [name, afterName] = consumeToken(rest);
  if (name === "") return undefined;
  rest = trimLeftSpace(afterName);
  if (!rest.startsWith("=")) return undefined;
  rest = trimLeftSpace(rest.slice(1));
  const [value, afterValue] = consumeValue(rest);
  if (value === "" && afterValue === rest) return undefined;
  return { name: name.toLowerCase(), value, rest: afterValue };
}

/** RFC 2231 `charset'language'percent-encoded`, for the charsets Go decodes (us-ascii and utf-8). */
function decode2231(s: string): string | undefined {
  const parts = s.split("'");
  if (parts.length !== 3) return undefined;
  const charset = (parts[0] ?? "").toLowerCase();
  if (charset === "") return undefined;
  if (charset !== "us-ascii" && charset !== "utf-8") return undefined;
  return percentUnescape(parts[2] ?? "");
}

function percentUnescape(s: string): string | undefined {
  if (/%(?![0-9a-fA-F]{2})/.test(s)) return undefined;
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    if (s[i] === "%") {
      bytes.push(Number.parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(s.charAt(i)));
  }
  return Buffer.from(bytes).toString("utf8");
}
