// --web.external-url as upstream reads it: kingpin's URL flag (values.go urlValue: Go's net/url Parse, `invalid URL:
// <error>`) and main.go's computeRoutePrefix. Node's URL parser refuses what Go takes (`foo`, a bare path) and takes
// what Go refuses (`:bad`), so the path is found as Go finds it.
import { goQuote } from "@local/go-compat/quote";

/**
 * The path of an external URL, percent-decoded, as Go's `url.Parse(raw).Path` (empty for none or an opaque URL).
 *
 * @throws {Error} with kingpin's text, e.g. `invalid URL: parse ":bad": missing protocol scheme`
 */
export function externalUrlPath(raw: string): string {
  const fail = (why: string) => new Error(`invalid URL: parse ${goQuote(raw)}: ${why}`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: Go refuses ASCII control bytes in a URL.
  if (/[\x00-\x1f\x7f]/.test(raw)) throw fail("net/url: invalid control character in URL");
  let rest = raw.split("#")[0] ?? "";
  let scheme = "";
  const m = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(rest);
  if (rest.startsWith(":")) throw fail("missing protocol scheme");
  if (m !== null) {
    scheme = m[0].slice(0, -1);
    rest = rest.slice(m[0].length);
  }
  rest = rest.split("?")[0] ?? "";
  if (!rest.startsWith("/")) {
    if (scheme !== "") return "";
    if ((rest.split("/")[0] ?? "").includes(":"))
      throw fail("first path segment in URL cannot contain colon");
  }
  if ((scheme !== "" || !rest.startsWith("///")) && rest.startsWith("//")) {
    const slash = rest.indexOf("/", 2);
    rest = slash < 0 ? "" : rest.slice(slash);
  }
  const bad = /%(?![0-9A-Fa-f]{2})/.exec(rest);
  if (bad !== null) throw fail(`invalid URL escape ${goQuote(rest.slice(bad.index, bad.index + 3))}`);
  try {
    return decodeURIComponent(rest);
  } catch {
    return rest; // bytes that are not UTF-8: Go keeps them; a prefix with them matches no request anyway
  }
}

/**
 * main.go `computeRoutePrefix`: the route prefix, else the external URL's path; `/` is none; otherwise one leading
 * slash and no trailing one (`foo/` → `/foo`).
 */
export function computeRoutePrefix(prefix: string, externalPath: string): string {
  const chosen = prefix === "" ? externalPath : prefix;
  if (chosen === "" || chosen === "/") return "";
  return `/${chosen.replace(/^\/+|\/+$/g, "")}`;
}
