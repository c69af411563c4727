// Go's mime.ParseMediaType (mime/mediatype.go), which upstream's push handler uses to tell delimited protobuf from
// text (handler/push.go): the type lower-cased, parameter names lower-cased, values as tokens or quoted strings, and a
// malformed parameter fails the whole header (the push is then read as text).

const TSPECIALS = '()<>@,;:\\"/[]?=';
const isTokenChar = (c: string) => c > " " && c < "\x7f" && !TSPECIALS.includes(c);

function consumeToken(v: string): [token: string, rest: string] {
  let i = 0;
  while (i < v.length && isTokenChar(v[i] ?? "")) i++;
  return [v.slice(0, i), v.slice(i)];
}

function consumeValue(v: string): [value: string, rest: string] {
  if (v === "") return ["", ""];
  if (v[0] !== '"') return consumeToken(v);
  let out = "";
  for (let i = 1; i < v.length; i++) {
    const c = v[i] ?? "";
    if (c === '"') return [out, v.slice(i + 1)];
    // An escape of a tspecial is the character; any other backslash is literal (MSIE paths).
    if (c === "\\" && i + 1 < v.length && TSPECIALS.includes(v[i + 1] ?? "")) {
      out += v[++i];
      continue;
    }
    if (c === "\r" || c === "\n") return ["", v];
    out += c;
  }
  return ["", v];
}

const trimLeft = (s: string) => s.replace(/^\s+/, "");

/** One `; name=value`, or undefined when there is none well-formed at the start of `v`. */
function consumeParam(v: string): [name: string, value: string, rest: string] | undefined {
  let rest = trimLeft(v);
  if (!rest.startsWith(";")) return undefined;
  const [name, afterName] = consumeToken(trimLeft(rest.slice(1)));
  if (name === "") return undefined;
  rest = trimLeft(afterName);
  if (!rest.startsWith("=")) return undefined;
  rest = trimLeft(rest.slice(1));
  const [value, after] = consumeValue(rest);
  if (value === "" && after === rest) return undefined;
  return [name.toLowerCase(), value, after];
}

/** The media type and parameters of a Content-Type header, or undefined where Go returns an error. */
export function parseMediaType(header: string): { type: string; params: Map<string, string> } | undefined {
  const semicolon = header.indexOf(";");
  const base = semicolon < 0 ? header : header.slice(0, semicolon);
  const type = base.toLowerCase().trim();
  const [main, afterMain] = consumeToken(type);
  if (main === "") return undefined;
  if (afterMain !== "") {
    if (!afterMain.startsWith("/")) return undefined;
    const [sub, afterSub] = consumeToken(afterMain.slice(1));
    if (sub === "" || afterSub !== "") return undefined;
  }
  const params = new Map<string, string>();
  let v = header.slice(base.length);
  while (v.length > 0) {
    v = trimLeft(v);
    if (v === "") break;
    const param = consumeParam(v);
    if (param === undefined) {
      if (v.trim() === ";") break; // a trailing semicolon is not an error
      return undefined;
    }
    const [name, value, rest] = param;
    // RFC 2231 continuations (`name*0=`) are not read: no client pushes them.
    if (!name.includes("*")) {
      if (params.has(name) && params.get(name) !== value) return undefined; // mime: duplicate parameter name
      params.set(name, value);
    }
    v = rest;
  }
  return { type, params };
}
