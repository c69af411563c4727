// What libyaml (yaml.v2's scanner) takes that the `yaml` package refuses, made into what the `yaml` package reads the
// same way: a quoted scalar continued on lines indented less than its key, a comment right after a token.
import { Lexer, type YAMLError } from "yaml";

/**
 * A quoted scalar may go on over lines indented less than its key for libyaml (scanner.c scans a flow scalar to its
 * closing quote whatever the indentation; `secret: "{{ getenv "KEY" }}"` with a KEY of several lines), where the
 * `yaml` package ends it there. The leading blanks of a continuation line are not part of the value, so such lines
 * are indented to the opening quote's column; a line starting with a document marker is left (libyaml refuses it).
 */
export function indentQuotedContinuations(text: string): string {
  for (let fixes = 0; fixes < 10_000; fixes++) {
    let offset = 0;
    let found: { start: number; end: number } | undefined;
    for (const token of new Lexer().lex(text)) {
      // The lexer's one-character control tokens (document, scalar and flow markers) take no source.
      if (token.length === 1 && token < " " && token !== "\n" && token !== "\t") continue;
      if ((token[0] === "'" || token[0] === '"') && quoteEnd(token, 0) === undefined) {
        const end = quoteEnd(text, offset);
        if (end !== undefined && text.slice(offset, end).includes("\n")) found = { start: offset, end };
        break;
      }
      offset += token.length;
    }
    if (found === undefined) return text;
    const column = found.start - (text.lastIndexOf("\n", found.start - 1) + 1);
    const body = text
      .slice(found.start, found.end)
      .replace(/\n(?!(?:---|\.\.\.)(?:[ \t\n]|$))/g, `\n${" ".repeat(column)}`);
    text = text.slice(0, found.start) + body + text.slice(found.end);
  }
  return text;
}

/** The offset just past the quote closing the quoted scalar opening at `start` (`''` and `\"` do not close it). */
function quoteEnd(text: string, start: number): number | undefined {
  const quote = text[start];
  for (let i = start + 1; i < text.length; i++) {
    if (quote === '"' && text[i] === "\\") i++;
    else if (text[i] === quote) {
      if (quote === "'" && text[i + 1] === "'") i++;
      else return i + 1;
    }
  }
  return undefined;
}

/**
 * libyaml skips to the next token and takes a `#` there as a comment with no blank before it (scanner.c
 * yaml_parser_scan_to_next_token: `key: 'x'#note`, `[a]#note`), where the `yaml` package wants one: a space is put
 * before each `#` it refused so. Returns `text` itself when there was none.
 */
export function spaceCommentsAfterTokens(text: string, errors: readonly YAMLError[]): string {
  const at = errors
    .filter((e) => e.message.startsWith("Comments must be separated from other tokens"))
    .map((e) => e.pos[0])
    .filter((i) => text[i] === "#")
    .sort((a, b) => b - a);
  let out = text;
  for (const i of new Set(at)) out = `${out.slice(0, i)} ${out.slice(i)}`;
  return out;
}

/**
 * yaml.v2's double-quoted escapes are YAML 1.1's and `\'` (scannerc.go yaml_parser_scan_flow_scalar), where the `yaml`
 * package takes YAML 1.2's `\/` and refuses `\'`: each `\'` becomes the `'` it stands for, and the offset of a `\/` is
 * returned for the caller to refuse (libyaml's "found unknown escape character").
 */
export function libyamlDoubleQuoteEscapes(text: string): { text: string; unknownEscapeAt?: number } {
  let offset = 0;
  const quotes: number[] = [];
  for (const token of new Lexer().lex(text)) {
    if (token.length === 1 && token < " " && token !== "\n" && token !== "\t") continue;
    if (token[0] === '"') {
      for (let i = 1; i < token.length; i++) {
        if (token[i] !== "\\") continue;
        if (token[i + 1] === "/") return { text, unknownEscapeAt: offset + i };
        if (token[i + 1] === "'") quotes.push(offset + i);
        i++;
      }
    }
    offset += token.length;
  }
  let out = text;
  for (const at of quotes.reverse()) out = out.slice(0, at) + out.slice(at + 1);
  return { text: out };
}
