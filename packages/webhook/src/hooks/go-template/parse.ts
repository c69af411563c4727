// The parser of Go's text/template (Go 1.19 text/template/parse/parse.go), with its three-token lookahead, so that
// what it accepts, and the line and words of each error (`template: hooks:3: unexpected EOF`), are Go's.

import { Lexer } from "./lex.js";
import { type Item, type ItemType, itemString } from "./lex-item.js";
import type {
  BranchNode,
  CommandNode,
  ElseNode,
  EndNode,
  ListNode,
  Node,
  PipeNode,
  TemplateNode,
  Tree,
  VariableNode,
} from "./nodes.js";
import { isEmptyTree, nodeString } from "./nodes.js";
import { newNumber } from "./number.js";
import { ErrSyntax, quote, unquote } from "./strconv.js";

/** A template that does not parse; the message is Go's, with byte-string text (see go-text.ts). */
export class TemplateParseError extends Error {}

/** The parsed file: every named template (`define`, `block`, and the file itself under its name). */
export type TreeSet = Map<string, Tree>;

/** A constant's error (strconv's or newNumber's); anything else, a stack overflow included, goes on up. */
function syntaxMessage(error: unknown): string {
  if (error instanceof ErrSyntax || (error instanceof Error && error.constructor === Error))
    return error.message;
  throw error;
}

/** Shared by the main template and the `define`/`block` bodies parsed from the same lexer. */
interface Shared {
  readonly name: string; // ParseName: the top-level name, for errors.
  readonly lex: Lexer;
  readonly funcs: ReadonlySet<string>;
  readonly treeSet: TreeSet;
}

class Parser {
  name: string;
  root: ListNode | undefined;
  readonly #s: Shared;
  readonly #token: Item[] = [];
  #peekCount = 0;
  #vars: string[] = ["$"];
  #actionLine = 0;
  #rangeDepth = 0;
  constructor(name: string, shared: Shared) {
    this.name = name;
    this.#s = shared;
  }
  next(): Item {
    if (this.#peekCount > 0) this.#peekCount--;
    else this.#token[0] = this.#s.lex.nextItem();
    return this.#token[this.#peekCount] as Item;
  }
  backup(): void {
    this.#peekCount++;
  }
  backup2(t1: Item): void {
    this.#token[1] = t1;
    this.#peekCount = 2;
  }
  backup3(t2: Item, t1: Item): void {
    this.#token[1] = t1;
    this.#token[2] = t2;
    this.#peekCount = 3;
  }
  peek(): Item {
    if (this.#peekCount > 0) return this.#token[this.#peekCount - 1] as Item;
    this.#peekCount = 1;
    this.#token[0] = this.#s.lex.nextItem();
    return this.#token[0];
  }
  nextNonSpace(): Item {
    let token: Item;
    do token = this.next();
    while (token.type === "space");
    return token;
  }
  peekNonSpace(): Item {
    const token = this.nextNonSpace();
    this.backup();
    return token;
  }
  errorf(message: string): never {
    this.root = undefined;
    throw new TemplateParseError(`template: ${this.#s.name}:${this.#token[0]?.line ?? 1}: ${message}`);
  }
  expect(expected: ItemType, context: string): Item {
    const token = this.nextNonSpace();
    if (token.type !== expected) this.unexpected(token, context);
    return token;
  }
  expectOneOf(a: ItemType, b: ItemType, context: string): Item {
    const token = this.nextNonSpace();
    if (token.type !== a && token.type !== b) this.unexpected(token, context);
    return token;
  }
  unexpected(token: Item, context: string): never {
    if (token.type === "error") {
      let extra = "";
      if (this.#actionLine !== 0 && this.#actionLine !== token.line) {
        extra = ` in action started at ${this.#s.name}:${this.#actionLine}`;
        if (token.val.endsWith(" action")) extra = extra.slice(" in action".length);
      }
      this.errorf(`${itemString(token)}${extra}`);
    }
    this.errorf(`unexpected ${itemString(token)} in ${context}`);
  }

  /** Adds this tree to the set; a second non-empty definition of a name is an error (parse.go add). */
  add(): void {
    const tree = this.#s.treeSet.get(this.name);
    if (tree === undefined || isEmptyTree(tree.root)) {
      this.#s.treeSet.set(this.name, { name: this.name, root: this.root as ListNode });
      return;
    }
    if (!isEmptyTree(this.root)) this.errorf(`template: multiple definition of template ${quote(this.name)}`);
  }
  parse(): void {
    this.root = { type: "list", pos: this.peek().pos, nodes: [] };
    while (this.peek().type !== "EOF") {
      if (this.peek().type === "leftDelim") {
        const delim = this.next();
        if (this.nextNonSpace().type === "define") {
          const def = new Parser("definition", this.#s);
          def.parseDefinition();
          continue;
        }
        this.backup2(delim);
      }
      const n = this.textOrAction();
      if (n.type === "end" || n.type === "else") this.errorf(`unexpected ${nodeString(n)}`);
      this.root.nodes.push(n);
    }
  }
  parseDefinition(): void {
    const context = "define clause";
    const name = this.expectOneOf("string", "rawString", context);
    this.name = this.unquote(name.val);
    this.expect("rightDelim", context);
    const [list, end] = this.itemList();
    this.root = list;
    if (end.type !== "end") this.errorf(`unexpected ${nodeString(end)} in ${context}`);
    this.add();
  }
  unquote(s: string): string {
    try {
      return unquote(s);
    } catch (error) {
      return this.errorf(syntaxMessage(error));
    }
  }
  itemList(): [ListNode, ElseNode | EndNode] {
    const list: ListNode = { type: "list", pos: this.peekNonSpace().pos, nodes: [] };
    while (this.peekNonSpace().type !== "EOF") {
      const n = this.textOrAction();
      if (n.type === "end" || n.type === "else") return [list, n];
      list.nodes.push(n);
    }
    return this.errorf("unexpected EOF");
  }
  textOrAction(): Node {
    const token = this.nextNonSpace();
    switch (token.type) {
      case "text":
        return { type: "text", pos: token.pos, text: token.val };
      case "leftDelim":
        this.#actionLine = token.line;
        try {
          return this.action();
        } finally {
          this.#actionLine = 0;
        }
      case "comment":
        return { type: "comment", pos: token.pos, text: token.val };
      default:
        return this.unexpected(token, "input");
    }
  }
  action(): Node {
    const token = this.nextNonSpace();
    switch (token.type) {
      case "block":
        return this.blockControl();
      case "break":
      case "continue": {
        const t = this.nextNonSpace();
        if (t.type !== "rightDelim") this.unexpected(t, `{{${token.type}}}`);
        if (this.#rangeDepth === 0) this.errorf(`{{${token.type}}} outside {{range}}`);
        return { type: token.type, pos: token.pos };
      }
      case "else":
        return this.elseControl();
      case "end":
        return { type: "end", pos: this.expect("rightDelim", "end").pos };
      case "if":
      case "range":
      case "with":
        return this.parseControl(token.type === "if", token.type);
      case "template":
        return this.templateControl();
    }
    this.backup();
    const t = this.peek();
    return { type: "action", pos: t.pos, line: t.line, pipe: this.pipeline("command", "rightDelim") };
  }
  pipeline(context: string, end: ItemType): PipeNode {
    const token = this.peekNonSpace();
    const pipe: PipeNode = {
      type: "pipe",
      pos: token.pos,
      line: token.line,
      isAssign: false,
      decl: [],
      cmds: [],
    };
    for (;;) {
      const v = this.peekNonSpace();
      if (v.type !== "variable") break;
      this.next();
      // 3-token look-ahead: in "$x foo", "foo" (not ":=") says $x is an argument, not a declaration.
      const tokenAfterVariable = this.peek();
      const next = this.peekNonSpace();
      if (next.type === "assign" || next.type === "declare") {
        pipe.isAssign = next.type === "assign";
        this.nextNonSpace();
        pipe.decl.push(this.variable(v.pos, v.val));
        this.#vars.push(v.val);
      } else if (next.type === "char" && next.val === ",") {
        this.nextNonSpace();
        pipe.decl.push(this.variable(v.pos, v.val));
        this.#vars.push(v.val);
        if (context === "range" && pipe.decl.length < 2) {
          const p = this.peekNonSpace().type;
          if (p === "variable" || p === "rightDelim" || p === "rightParen") continue;
          this.errorf("range can only initialize variables");
        }
        this.errorf(`too many declarations in ${context}`);
      } else if (tokenAfterVariable.type === "space") this.backup3(v, tokenAfterVariable);
      else this.backup2(v);
      break;
    }
    for (;;) {
      const token = this.nextNonSpace();
      if (token.type === end) {
        this.checkPipeline(pipe, context);
        return pipe;
      }
      switch (token.type) {
        case "bool":
        case "charConstant":
        case "complex":
        case "dot":
        case "field":
        case "identifier":
        case "number":
        case "nil":
        case "rawString":
        case "string":
        case "variable":
        case "leftParen":
          this.backup();
          pipe.cmds.push(this.command());
          break;
        default:
          this.unexpected(token, context);
      }
    }
  }
  checkPipeline(pipe: PipeNode, context: string): void {
    if (pipe.cmds.length === 0) this.errorf(`missing value for ${context}`);
    pipe.cmds.slice(1).forEach((c, i) => {
      const t = c.args[0]?.type;
      if (t === "bool" || t === "dot" || t === "nil" || t === "number" || t === "string")
        this.errorf(`non executable command in pipeline stage ${i + 2}`);
    });
  }
  parseControl(allowElseIf: boolean, context: "if" | "range" | "with"): BranchNode {
    const mark = this.#vars.length;
    try {
      const pipe = this.pipeline(context, "rightDelim");
      if (context === "range") this.#rangeDepth++;
      let [list, next] = this.itemList();
      if (context === "range") this.#rangeDepth--;
      let elseList: ListNode | undefined;
      if (next.type === "else") {
        if (allowElseIf && this.peek().type === "if") {
          // "{{else if ...}} ..." is treated as "{{else}}{{if ...}} ... {{end}}{{end}}".
          this.next();
          elseList = { type: "list", pos: next.pos, nodes: [this.parseControl(true, "if")] };
        } else {
          [elseList, next] = this.itemList();
          if (next.type !== "end") this.errorf(`expected end; found ${nodeString(next)}`);
        }
      }
      return { type: context, pos: pipe.pos, line: pipe.line, pipe, list, elseList };
    } finally {
      this.#vars.length = mark;
    }
  }
  elseControl(): ElseNode {
    const peek = this.peekNonSpace();
    if (peek.type === "if") return { type: "else", pos: peek.pos, line: peek.line };
    const token = this.expect("rightDelim", "else");
    return { type: "else", pos: token.pos, line: token.line };
  }
  blockControl(): TemplateNode {
    const context = "block clause";
    const token = this.nextNonSpace();
    const name = this.parseTemplateName(token, context);
    const pipe = this.pipeline(context, "rightDelim");
    const block = new Parser(name, this.#s);
    const [list, end] = block.itemList();
    block.root = list;
    if (end.type !== "end") this.errorf(`unexpected ${nodeString(end)} in ${context}`);
    block.add();
    return { type: "template", pos: token.pos, line: token.line, name, pipe };
  }

  templateControl(): TemplateNode {
    const context = "template clause";
    const token = this.nextNonSpace();
    const name = this.parseTemplateName(token, context);
    let pipe: PipeNode | undefined;
    if (this.nextNonSpace().type !== "rightDelim") {
      this.backup();
      pipe = this.pipeline(context, "rightDelim");
    }
    return { type: "template", pos: token.pos, line: token.line, name, pipe };
  }

  parseTemplateName(token: Item, context: string): string {
    if (token.type === "string" || token.type === "rawString") return this.unquote(token.val);
    return this.unexpected(token, context);
  }

  command(): CommandNode {
    const cmd: CommandNode = { type: "command", pos: this.peekNonSpace().pos, args: [] };
    for (;;) {
      this.peekNonSpace(); // skip leading spaces.
      const operand = this.operand();
      if (operand !== undefined) cmd.args.push(operand);
      const token = this.next();
      if (token.type === "space") continue;
      if (token.type === "rightDelim" || token.type === "rightParen") this.backup();
      else if (token.type !== "pipe") this.unexpected(token, "operand");
      break;
    }
    if (cmd.args.length === 0) this.errorf("empty command");
    return cmd;
  }

  operand(): Node | undefined {
    let node = this.term();
    if (node === undefined) return undefined;
    if (this.peek().type === "field") {
      const fields: string[] = [];
      const pos = this.peek().pos;
      while (this.peek().type === "field") fields.push(this.next().val.slice(1));
      // Fields of a field or variable are folded into it; a chain on a constant is an error.
      switch (node.type) {
        case "field":
          node = { type: "field", pos, ident: [...node.ident, ...fields] };
          break;
        case "variable":
          node = { type: "variable", pos, ident: [...node.ident, ...fields] };
          break;
        case "bool":
        case "string":
        case "number":
        case "nil":
        case "dot":
          this.errorf(`unexpected . after term ${quote(nodeString(node))}`);
          break;
        default:
          node = { type: "chain", pos, node, field: fields };
      }
    }
    return node;
  }

  term(): Node | undefined {
    const token = this.nextNonSpace();
    switch (token.type) {
      case "identifier":
        if (!this.#s.funcs.has(token.val)) this.errorf(`function ${quote(token.val)} not defined`);
        return { type: "identifier", pos: token.pos, ident: token.val };
      case "dot":
        return { type: "dot", pos: token.pos };
      case "nil":
        return { type: "nil", pos: token.pos };
      case "variable":
        return this.useVar(token.pos, token.val);
      case "field":
        return { type: "field", pos: token.pos, ident: token.val.slice(1).split(".") };
      case "bool":
        return { type: "bool", pos: token.pos, value: token.val === "true" };
      case "charConstant":
      case "complex":
      case "number":
        try {
          return newNumber(token.pos, token.val, token.type);
        } catch (error) {
          return this.errorf(syntaxMessage(error));
        }
      case "leftParen":
        return this.pipeline("parenthesized pipeline", "rightParen");
      case "string":
      case "rawString":
        return { type: "string", pos: token.pos, quoted: token.val, text: this.unquote(token.val) };
    }
    this.backup();
    return undefined;
  }

  variable(pos: number, name: string): VariableNode {
    return { type: "variable", pos, ident: name.split(".") };
  }

  useVar(pos: number, name: string): VariableNode {
    const v = this.variable(pos, name);
    if (!this.#vars.includes(v.ident[0] as string))
      this.errorf(`undefined variable ${quote(v.ident[0] as string)}`);
    return v;
  }
}

/**
 * Parses a template as Go's `template.New(name).Funcs(funcs).Parse(text)`: every template it defines, by name.
 *
 * @param text the template as a byte string (go-text.ts)
 * @param funcs the names of the functions it may call (Go's builtins included)
 * @throws {TemplateParseError} `template: <name>:<line>: <what>`, as Go words it
 */
export function parseTemplate(name: string, text: string, funcs: ReadonlySet<string>): TreeSet {
  const treeSet: TreeSet = new Map();
  const t = new Parser(name, { name, lex: new Lexer(text), funcs, treeSet });
  t.parse();
  t.add();
  return treeSet;
}
