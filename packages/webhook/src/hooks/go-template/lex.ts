// The lexer of Go's text/template (Go 1.19 text/template/parse/lex.go), state for state, over a byte string (see
// go-text.ts) so positions are byte offsets as Go's. Items are produced on demand, as Go's goroutine does.
import { decodeRune, formatRuneU, isDigit, isLetter, lastRuneWidth } from "./go-text.js";
import { type Item, type ItemType, KEYWORDS } from "./lex-item.js";
import { quote as quoteBytes } from "./strconv.js";

const EOF = -1;
const LEFT = "{{";
const RIGHT = "}}";
const SPACE_CHARS = " \t\r\n";

const isSpace = (r: number) => r === 0x20 || r === 0x09 || r === 0x0d || r === 0x0a;
const isAlphaNumeric = (r: number) => r === 0x5f || (r >= 0 && (isLetter(r) || isDigit(r)));
const hasLeftTrimMarker = (s: string, i: number) =>
  i + 1 < s.length && s[i] === "-" && isSpace(s.charCodeAt(i + 1));
const hasRightTrimMarker = (s: string, i: number) =>
  i + 1 < s.length && isSpace(s.charCodeAt(i)) && s[i + 1] === "-";

type State = ((l: Lexer) => State) | undefined;

/** Go's lexer; `nextItem()` runs the state machine until it has emitted an item. */
export class Lexer {
  readonly input: string;
  pos = 0;
  start = 0;
  atEOF = false;
  parenDepth = 0;
  line = 1;
  startLine = 1;
  readonly #items: Item[] = [];
  #state: State = lexText;

  constructor(input: string) {
    this.input = input;
  }

  nextItem(): Item {
    while (this.#items.length === 0) {
      if (this.#state === undefined) return { type: "EOF", pos: this.pos, val: "", line: this.line };
      this.#state = this.#state(this);
    }
    return this.#items.shift() as Item;
  }

  next(): number {
    if (this.pos >= this.input.length) {
      this.atEOF = true;
      return EOF;
    }
    const { code, width } = decodeRune(this.input, this.pos);
    this.pos += width;
    if (code === 0x0a) this.line++;
    return code;
  }

  peek(): number {
    const r = this.next();
    this.backup();
    return r;
  }

  backup(): void {
    if (!this.atEOF && this.pos > 0) {
      const w = lastRuneWidth(this.input, this.pos);
      this.pos -= w;
      if (this.input[this.pos] === "\n") this.line--;
    }
  }

  emit(type: ItemType): void {
    this.#items.push({
      type,
      pos: this.start,
      val: this.input.slice(this.start, this.pos),
      line: this.startLine,
    });
    this.start = this.pos;
    this.startLine = this.line;
  }

  ignore(): void {
    this.line += countNewlines(this.input.slice(this.start, this.pos));
    this.start = this.pos;
    this.startLine = this.line;
  }

  accept(valid: string): boolean {
    const r = this.next();
    if (r >= 0 && valid.includes(String.fromCharCode(r))) return true;
    this.backup();
    return false;
  }

  acceptRun(valid: string): void {
    for (;;) {
      const r = this.next();
      if (!(r >= 0 && r < 0x80 && valid.includes(String.fromCharCode(r)))) break;
    }
    this.backup();
  }

  errorf(message: string): State {
    this.#items.push({ type: "error", pos: this.start, val: message, line: this.startLine });
    return undefined;
  }

  atRightDelim(): { delim: boolean; trimSpaces: boolean } {
    if (hasRightTrimMarker(this.input, this.pos) && this.input.startsWith(RIGHT, this.pos + 2))
      return { delim: true, trimSpaces: true };
    return { delim: this.input.startsWith(RIGHT, this.pos), trimSpaces: false };
  }

  atTerminator(): boolean {
    const r = this.peek();
    if (isSpace(r)) return true;
    if (r === EOF || ".,|:)(".includes(String.fromCharCode(r))) return true;
    return this.input.startsWith(RIGHT, this.pos);
  }
}

function countNewlines(s: string): number {
  let n = 0;
  for (const c of s) if (c === "\n") n++;
  return n;
}

function rightTrimLength(s: string): number {
  let i = s.length;
  while (i > 0 && SPACE_CHARS.includes(s[i - 1] as string)) i--;
  return s.length - i;
}

function leftTrimLength(s: string): number {
  let i = 0;
  while (i < s.length && SPACE_CHARS.includes(s[i] as string)) i++;
  return i;
}

function lexText(l: Lexer): State {
  const x = l.input.indexOf(LEFT, l.pos);
  if (x >= 0) {
    l.pos = x;
    const trimLength = hasLeftTrimMarker(l.input, l.pos + LEFT.length)
      ? rightTrimLength(l.input.slice(l.start, l.pos))
      : 0;
    l.pos -= trimLength;
    if (l.pos > l.start) {
      l.line += countNewlines(l.input.slice(l.start, l.pos));
      l.emit("text");
    }
    l.pos += trimLength;
    l.ignore();
    return lexLeftDelim;
  }
  l.pos = l.input.length;
  if (l.pos > l.start) {
    l.line += countNewlines(l.input.slice(l.start, l.pos));
    l.emit("text");
  }
  l.emit("EOF");
  return undefined;
}

function lexLeftDelim(l: Lexer): State {
  l.pos += LEFT.length;
  const trimSpace = hasLeftTrimMarker(l.input, l.pos);
  const afterMarker = trimSpace ? 2 : 0;
  if (l.input.startsWith("/*", l.pos + afterMarker)) {
    l.pos += afterMarker;
    l.ignore();
    return lexComment;
  }
  l.emit("leftDelim");
  l.pos += afterMarker;
  l.ignore();
  l.parenDepth = 0;
  return lexInsideAction;
}

function lexComment(l: Lexer): State {
  l.pos += 2;
  const i = l.input.indexOf("*/", l.pos);
  if (i < 0) return l.errorf("unclosed comment");
  l.pos = i + 2;
  const { delim, trimSpaces } = l.atRightDelim();
  if (!delim) return l.errorf("comment ends before closing delimiter");
  if (trimSpaces) l.pos += 2;
  l.pos += RIGHT.length;
  if (trimSpaces) l.pos += leftTrimLength(l.input.slice(l.pos));
  l.ignore();
  return lexText;
}

function lexRightDelim(l: Lexer): State {
  const trimSpace = hasRightTrimMarker(l.input, l.pos);
  if (trimSpace) {
    l.pos += 2;
    l.ignore();
  }
  l.pos += RIGHT.length;
  l.emit("rightDelim");
  if (trimSpace) {
    l.pos += leftTrimLength(l.input.slice(l.pos));
    l.ignore();
  }
  return lexText;
}

function lexInsideAction(l: Lexer): State {
  if (l.atRightDelim().delim) {
    if (l.parenDepth === 0) return lexRightDelim;
    return l.errorf("unclosed left paren");
  }
  const r = l.next();
  if (r === EOF) return l.errorf("unclosed action");
  if (isSpace(r)) {
    l.backup(); // Put space back in case we have " -}}".
    return lexSpace;
  }
  const c = String.fromCodePoint(r);
  switch (c) {
    case "=":
      l.emit("assign");
      return lexInsideAction;
    case ":":
      if (l.next() !== 0x3d) return l.errorf("expected :=");
      l.emit("declare");
      return lexInsideAction;
    case "|":
      l.emit("pipe");
      return lexInsideAction;
    case '"':
      return lexQuote;
    case "`":
      return lexRawQuote;
    case "$":
      return lexVariable;
    case "'":
      return lexChar;
    case "(":
      l.emit("leftParen");
      l.parenDepth++;
      return lexInsideAction;
    case ")":
      l.emit("rightParen");
      l.parenDepth--;
      if (l.parenDepth < 0) return l.errorf(`unexpected right paren ${formatRuneU(r)}`);
      return lexInsideAction;
  }
  if (c === ".") {
    // A '.' not followed by a digit starts a field; otherwise a number.
    const next = l.input.charCodeAt(l.pos);
    if (l.pos < l.input.length && (next < 0x30 || next > 0x39)) return lexField;
  }
  if (c === "." || c === "+" || c === "-" || (r >= 0x30 && r <= 0x39)) {
    l.backup();
    return lexNumber;
  }
  if (isAlphaNumeric(r)) {
    l.backup();
    return lexIdentifier;
  }
  if (r < 0x80 && r >= 0x20 && r < 0x7f) {
    l.emit("char");
    return lexInsideAction;
  }
  return l.errorf(`unrecognized character in action: ${formatRuneU(r)}`);
}

function lexSpace(l: Lexer): State {
  let numSpaces = 0;
  while (isSpace(l.peek())) {
    l.next();
    numSpaces++;
  }
  // Be careful about a trim-marked closing delimiter, which has a minus after a space.
  if (hasRightTrimMarker(l.input, l.pos - 1) && l.input.startsWith(RIGHT, l.pos - 1 + 2)) {
    l.backup(); // Before the space.
    if (numSpaces === 1) return lexRightDelim;
  }
  l.emit("space");
  return lexInsideAction;
}

function lexIdentifier(l: Lexer): State {
  for (;;) {
    const r = l.next();
    if (isAlphaNumeric(r)) continue;
    l.backup();
    const word = l.input.slice(l.start, l.pos);
    if (!l.atTerminator()) return l.errorf(`bad character ${formatRuneU(r)}`);
    const keyword = KEYWORDS.get(word);
    if (keyword !== undefined && keyword !== "dot") l.emit(keyword);
    else if (word[0] === ".") l.emit("field");
    else if (word === "true" || word === "false") l.emit("bool");
    else l.emit("identifier");
    return lexInsideAction;
  }
}

function lexField(l: Lexer): State {
  return lexFieldOrVariable(l, "field");
}

function lexVariable(l: Lexer): State {
  if (l.atTerminator()) {
    l.emit("variable"); // Nothing interesting follows -> "$".
    return lexInsideAction;
  }
  return lexFieldOrVariable(l, "variable");
}

function lexFieldOrVariable(l: Lexer, type: "field" | "variable"): State {
  if (l.atTerminator()) {
    l.emit(type === "variable" ? "variable" : "dot");
    return lexInsideAction;
  }
  let r: number;
  for (;;) {
    r = l.next();
    if (!isAlphaNumeric(r)) {
      l.backup();
      break;
    }
  }
  if (!l.atTerminator()) return l.errorf(`bad character ${formatRuneU(r)}`);
  l.emit(type);
  return lexInsideAction;
}

/** Scans a quoted string or char up to `quote`; a backslash escapes anything but a newline or the end. */
function lexQuoted(l: Lexer, quote: number, type: ItemType, unterminated: string): State {
  for (;;) {
    let r = l.next();
    if (r === 0x5c) {
      r = l.next();
      if (r !== EOF && r !== 0x0a) continue;
    }
    if (r === EOF || r === 0x0a) return l.errorf(unterminated);
    if (r === quote) break;
  }
  l.emit(type);
  return lexInsideAction;
}

function lexChar(l: Lexer): State {
  return lexQuoted(l, 0x27, "charConstant", "unterminated character constant");
}

function lexQuote(l: Lexer): State {
  return lexQuoted(l, 0x22, "string", "unterminated quoted string");
}

function lexRawQuote(l: Lexer): State {
  for (;;) {
    const r = l.next();
    if (r === EOF) return l.errorf("unterminated raw quoted string");
    if (r === 0x60) break;
  }
  l.emit("rawString");
  return lexInsideAction;
}

function lexNumber(l: Lexer): State {
  if (!scanNumber(l)) return l.errorf(`bad number syntax: ${quoteBytes(l.input.slice(l.start, l.pos))}`);
  const sign = l.peek();
  if (sign === 0x2b || sign === 0x2d) {
    // Complex: 1+2i. No spaces, must end in 'i'.
    if (!scanNumber(l) || l.input[l.pos - 1] !== "i")
      return l.errorf(`bad number syntax: ${quoteBytes(l.input.slice(l.start, l.pos))}`);
    l.emit("complex");
  } else l.emit("number");
  return lexInsideAction;
}

function scanNumber(l: Lexer): boolean {
  l.accept("+-");
  let digits = "0123456789_";
  if (l.accept("0")) {
    if (l.accept("xX")) digits = "0123456789abcdefABCDEF_";
    else if (l.accept("oO")) digits = "01234567_";
    else if (l.accept("bB")) digits = "01_";
  }
  l.acceptRun(digits);
  if (l.accept(".")) l.acceptRun(digits);
  if (digits.length === 11 && l.accept("eE")) {
    l.accept("+-");
    l.acceptRun("0123456789_");
  }
  if (digits.length === 23 && l.accept("pP")) {
    l.accept("+-");
    l.acceptRun("0123456789_");
  }
  l.accept("i");
  if (isAlphaNumeric(l.peek())) {
    l.next();
    return false;
  }
  return true;
}
