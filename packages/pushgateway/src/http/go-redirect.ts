import { losslessBytes } from "../exposition/lossless-utf8.js";
import type { GatewayResponse } from "../handlers/responses.js";

/** Bytes net/url leaves alone in a path (url.go `shouldEscape`, mode encodePath): unreserved plus `$&+,/:;=@`. */
const PATH_SAFE = /^[A-Za-z0-9\-_.~$&+,/:;=@]$/;

/**
 * A decoded path as Go writes it back into a URL (net/url `URL.EscapedPath` without a RawPath): every UTF-8 byte
 * outside the safe set as `%XX`, upper-case hex. So a redirect's Location is a valid header, as Go's is.
 */
export function escapeGoPath(path: string): string {
  let out = "";
  // Bytes of the request that are not UTF-8 (`%E2%82`) are kept as lone surrogates (lossless-utf8.ts): the same bytes
  // go back out, as Go's path holds them.
  for (const byte of losslessBytes(path)) {
    const c = String.fromCharCode(byte);
    out += byte < 0x80 && PATH_SAFE.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** net/http `htmlEscape` (the redirect body's href): Go writes `"` as `&#34;` and `'` as `&#39;`. */
function goHtmlEscape(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => `&${{ "&": "amp;", "<": "lt;", ">": "gt;", '"': "#34;", "'": "#39;" }[c]}`,
  );
}

/** net/http `hexEscapeNonASCII`: a query may carry raw bytes (latin1 in node's request line), Location may not. */
function hexEscapeNonAscii(url: string): string {
  let out = "";
  for (const c of url) {
    const code = c.charCodeAt(0);
    out += code < 0x80 ? c : `%${code.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

const STATUS_TEXT: Readonly<Record<number, string>> = { 301: "Moved Permanently", 307: "Temporary Redirect" };

/**
 * Go's `http.Redirect` to a local path (net/http server.go): `Location` with non-ASCII hex-escaped, and for GET
 * (HEAD: headers only) `text/html` with `<a href="...">Moved Permanently</a>.` and two newlines; other methods get no
 * Content-Type and an empty body. `path` is decoded, `query` the raw query without `?` ("" = none, unless
 * `forceQuery`: the request ended in a bare `?`, which url.URL.String keeps), `origin` the `scheme://host` of an
 * absolute-form request target where Go names it.
 */
export function goRedirect(
  method: string,
  target: { path: string; query: string; status: 301 | 307; origin?: string; forceQuery?: boolean },
): GatewayResponse {
  const query = target.query === "" && target.forceQuery !== true ? "" : `?${target.query}`;
  const url = `${target.origin ?? ""}${escapeGoPath(target.path)}${query}`;
  const headers: Record<string, string> = { Location: hexEscapeNonAscii(url) };
  if (method === "GET" || method === "HEAD") headers["Content-Type"] = "text/html; charset=utf-8";
  const body =
    method === "GET" ? `<a href="${goHtmlEscape(url)}">${STATUS_TEXT[target.status]}</a>.\n\n` : "";
  return { status: target.status, headers, body };
}
