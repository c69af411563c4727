/** A decoded XML payload, or the reason it could not be decoded. */
export type XmlDecoded = { readonly value: Record<string, unknown> } | { readonly error: string };

type Token =
  | { readonly kind: "start"; readonly name: string; readonly attrs: readonly (readonly [string, string])[] }
  | { readonly kind: "end"; readonly name: string }
  | { readonly kind: "text"; readonly text: string };

/**
 * Decodes an XML payload into the map upstream builds with clbanning/mxj `NewMapXml` over Go's `encoding/xml`
 * (webhook.go hookHandler): the root element is the only top-level key (anything after it is ignored), attributes
 * become `-<local name>`, namespace prefixes are dropped, repeated elements become lists, every value is a string, text
 * is trimmed, an element's text beside attributes or children is `#text`, and, as mxj does, text that comes before the
 * first child makes the element that text alone. Entities are Go's five plus numeric references; unknown ones and
 * mismatched tags are errors (the payload is then absent).
 */
export function decodeGoXml(text: string): XmlDecoded {
  const tokens = tokenize(text);
  try {
    let first = tokens.next();
    // Anything before the root element (declaration, comments, stray text) is skipped.
    while (!first.done && first.value.kind !== "start") first = tokens.next();
    if (first.done) return { error: "EOF" };
    const root = first.value as Extract<Token, { kind: "start" }>;
    return { value: element(root, tokens) };
  } catch (error) {
    if (error instanceof XmlSyntax)
      return { error: `xml.Decoder.Token() - XML syntax error: ${error.message}` };
    throw error;
  }
}

class XmlSyntax extends Error {}

/** mxj's `xmlToMapParser` for one element: returns `{ name: value }`. */
function element(start: Extract<Token, { kind: "start" }>, tokens: Iterator<Token>): Record<string, unknown> {
  const n: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const na: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [k, v] of start.attrs) na[`-${local(k)}`] = v;
  const key = local(start.name);
  for (;;) {
    const next = tokens.next();
    if (next.done) throw new XmlSyntax("unexpected EOF");
    const t = next.value;
    if (t.kind === "start") {
      const child = element(t, tokens);
      const [childKey, childValue] = Object.entries(child)[0] as [string, unknown];
      if (Object.hasOwn(na, childKey)) {
        const existing = na[childKey];
        na[childKey] = Array.isArray(existing) ? [...existing, childValue] : [existing, childValue];
      } else na[childKey] = childValue;
    } else if (t.kind === "end") {
      if (t.name !== start.name) throw new XmlSyntax(`element <${start.name}> closed by </${t.name}>`);
      if (Object.keys(n).length === 0) n[key] = Object.keys(na).length > 0 ? na : "";
      return n;
    } else {
      const trimmed = trimXmlSpace(t.text);
      if (trimmed === "") continue;
      if (Object.keys(na).length > 0) na["#text"] = trimmed;
      else n[key] = trimmed;
    }
  }
}

/** Go's `xml.Name.Local`: the part after the first `:`, when there is a non-empty one on both sides. */
function local(name: string): string {
  const i = name.indexOf(":");
  return i < 1 || i > name.length - 2 ? name : name.slice(i + 1);
}

const ENTITIES: Readonly<Record<string, string>> = { lt: "<", gt: ">", amp: "&", apos: "'", quot: '"' };
const NAME = /^[A-Za-z_:\u00C0-\uFFFF][\w.:\-\u00B7\u00C0-\uFFFF]*/;

function* tokenize(src: string): Generator<Token> {
  const text = src.replace(/\r\n?/g, "\n");
  let at = 0;
  while (at < text.length) {
    if (text[at] !== "<") {
      const end = text.indexOf("<", at);
      const raw = text.slice(at, end < 0 ? text.length : end);
      at = end < 0 ? text.length : end;
      yield { kind: "text", text: decodeEntities(raw) };
      continue;
    }
    if (text.startsWith("<!--", at)) {
      const end = text.indexOf("-->", at + 4);
      if (end < 0) throw new XmlSyntax("unexpected EOF");
      at = end + 3;
    } else if (text.startsWith("<![CDATA[", at)) {
      const end = text.indexOf("]]>", at + 9);
      if (end < 0) throw new XmlSyntax("unexpected EOF in CDATA section");
      yield { kind: "text", text: text.slice(at + 9, end) };
      at = end + 3;
    } else if (text.startsWith("<?", at)) {
      const end = text.indexOf("?>", at + 2);
      if (end < 0) throw new XmlSyntax("unexpected EOF");
      at = end + 2;
    } else if (text.startsWith("<!", at)) {
      // A directive (DOCTYPE), possibly with a bracketed internal subset.
      let depth = 0;
      let i = at + 2;
      for (; i < text.length; i++) {
        if (text[i] === "<") depth++;
        else if (text[i] === ">") {
          if (depth === 0) break;
          depth--;
        }
      }
      if (i >= text.length) throw new XmlSyntax("unexpected EOF");
      at = i + 1;
    } else if (text[at + 1] === "/") {
      const name = NAME.exec(text.slice(at + 2))?.[0];
      if (name === undefined) throw new XmlSyntax("expected element name after </");
      at += 2 + name.length;
      while (/\s/.test(text[at] ?? "")) at++;
      if (text[at] !== ">") throw new XmlSyntax(`invalid characters between </${name} and >`);
      at++;
      yield { kind: "end", name };
    } else {
      const name = NAME.exec(text.slice(at + 1))?.[0];
      if (name === undefined) throw new XmlSyntax("expected element name after <");
      at += 1 + name.length;
      const attrs: [string, string][] = [];
      for (;;) {
        while (/\s/.test(text[at] ?? "")) at++;
        if (text.startsWith("/>", at)) {
          at += 2;
          yield { kind: "start", name, attrs };
          yield { kind: "end", name };
          break;
        }
        if (text[at] === ">") {
          at++;
          yield { kind: "start", name, attrs };
          break;
        }
        const attr = NAME.exec(text.slice(at))?.[0];
        if (attr === undefined) throw new XmlSyntax("expected attribute name in element");
        at += attr.length;
        while (/\s/.test(text[at] ?? "")) at++;
        if (text[at] !== "=") throw new XmlSyntax("attribute name without = in element");
        at++;
        while (/\s/.test(text[at] ?? "")) at++;
        const quote = text[at];
        if (quote !== '"' && quote !== "'")
          throw new XmlSyntax("unquoted or missing attribute value in element");
        const end = text.indexOf(quote, at + 1);
        if (end < 0) throw new XmlSyntax("unexpected EOF");
        const value = text.slice(at + 1, end);
        if (value.includes("<")) throw new XmlSyntax("unescaped < inside quoted string");
        attrs.push([attr, decodeEntities(value)]);
        at = end + 1;
      }
    }
  }
}

function decodeEntities(raw: string): string {
  return raw.replace(/&([^;]*);?/g, (whole, name: string) => {
    if (!whole.endsWith(";")) throw new XmlSyntax("invalid character entity (no semicolon)");
    if (name in ENTITIES) return ENTITIES[name] as string;
    const num = /^#(?:x([0-9a-fA-F]+)|([0-9]+))$/.exec(name);
    if (num !== null) {
      const code = num[1] !== undefined ? Number.parseInt(num[1], 16) : Number(num[2]);
      if (code <= 0x10ffff) return String.fromCodePoint(code);
    }
    throw new XmlSyntax(`invalid character entity ${whole}`);
  });
}

/**
 * The text without the leading and trailing bytes mxj trims (tab, CR, backspace, LF, space). By hand: the regular
 * expression for it backtracks quadratically over a long run of spaces inside the text (40 kB took 3.4 s).
 */
function trimXmlSpace(text: string): string {
  const blank = (c: number) => c === 0x09 || c === 0x0d || c === 0x08 || c === 0x0a || c === 0x20;
  let start = 0;
  let end = text.length;
  while (start < end && blank(text.charCodeAt(start))) start++;
  while (end > start && blank(text.charCodeAt(end - 1))) end--;
  return text.slice(start, end);
}
