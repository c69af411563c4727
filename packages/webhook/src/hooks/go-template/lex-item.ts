// The tokens of Go's text/template lexer (Go 1.19 text/template/parse/lex.go item, itemType) and item.String(),
// which the parser's errors print (`unexpected <end> in command`, `unexpected "}" in operand`).
import { decodeRune } from "./go-text.js";
import { quote } from "./strconv.js";

export type ItemType =
  | "error"
  | "bool"
  | "char"
  | "charConstant"
  | "comment"
  | "complex"
  | "assign"
  | "declare"
  | "EOF"
  | "field"
  | "identifier"
  | "leftDelim"
  | "leftParen"
  | "number"
  | "pipe"
  | "rawString"
  | "rightDelim"
  | "rightParen"
  | "space"
  | "string"
  | "text"
  | "variable"
  // Keywords (Go: itemType > itemKeyword).
  | "block"
  | "break"
  | "continue"
  | "dot"
  | "define"
  | "else"
  | "end"
  | "if"
  | "nil"
  | "range"
  | "template"
  | "with";

/** A token: its type, byte offset, text (for errors: the message) and the line it starts on. */
export interface Item {
  readonly type: ItemType;
  readonly pos: number;
  readonly val: string;
  readonly line: number;
}

export const KEYWORDS = new Map<string, ItemType>([
  [".", "dot"],
  ["block", "block"],
  ["break", "break"],
  ["continue", "continue"],
  ["define", "define"],
  ["else", "else"],
  ["end", "end"],
  ["if", "if"],
  ["range", "range"],
  ["nil", "nil"],
  ["template", "template"],
  ["with", "with"],
]);

/** Items Go's item.String() prints without quotes: keywords in angle brackets, EOF, errors. */
export function itemString(i: Item): string {
  if (i.type === "EOF") return "EOF";
  if (i.type === "error") return i.val;
  if (KEYWORD_TYPES.has(i.type)) return `<${i.val}>`;
  if (i.val.length > 10) return `${goQuotePrefix(i.val, 10)}...`;
  return quote(i.val);
}

const KEYWORD_TYPES = new Set<ItemType>([
  "block",
  "break",
  "continue",
  "dot",
  "define",
  "else",
  "end",
  "if",
  "nil",
  "range",
  "template",
  "with",
]);

/** `%.10q`: the first 10 runes, quoted. */
function goQuotePrefix(s: string, runes: number): string {
  let i = 0;
  for (let n = 0; n < runes && i < s.length; n++) i += decodeRune(s, i).width;
  return quote(s.slice(0, i));
}
