// Executes a parsed template as Go 1.19's text/template (exec.go) does with nil data: the walk, pipelines,
// variables, if/with/range (with break and continue), template calls, argument conversion by parameter type, and
// errors worded and located as Go's (`template: hooks:1:3: executing "hooks" at <index "ab" 5>: error calling
// index: index out of range: 5`).
import { FuncError, type ParamType, type TemplateFunc } from "./builtins.js";
import { sprint } from "./go-format.js";
import type {
  BranchNode,
  ChainNode,
  CommandNode,
  FieldNode,
  IdentifierNode,
  Node,
  NumberNode,
  PipeNode,
  VariableNode,
} from "./nodes.js";
import { nodeString } from "./nodes.js";
import type { TreeSet, TreeSet as Trees } from "./parse.js";
import { quote } from "./strconv.js";
import { bool, int, isTrue, NIL, str, typeName, type Value } from "./values.js";

/** A template that failed while executing; the message is Go's, with byte-string text (go-text.ts). */
export class TemplateExecError extends Error {}

const BREAK = Symbol("break");
const CONTINUE = Symbol("continue");
/** Go's maxExecDepth; a JS stack runs out well before, which is reported as this limit being reached. */
const MAX_EXEC_DEPTH = 100000;
const RECURSION = 256;
/** The `final` argument of a command that has none (Go: missingVal). */
const MISSING = Symbol("missing");
type Final = Value | typeof MISSING;

// V8 reports running out of stack as a RangeError, or as whatever it was building then (a SyntaxError): by message.
const isStackOverflow = (error: unknown) =>
  error instanceof Error && error.message.includes("Maximum call stack size exceeded");

interface Deepest {
  depth?: number;
  caller?: State;
  node?: Node;
}

class State {
  node: Node | undefined;
  vars: { name: string; value: Value }[];
  readonly #text: string;
  readonly #parseName: string;
  readonly #name: string;
  readonly #trees: Trees;
  readonly #funcs: ReadonlyMap<string, TemplateFunc>;
  readonly #depth: number;
  /** The innermost template call so far, where a stack overflow is reported (Go: at its depth limit). */
  readonly #deepest: Deepest;
  out: string[];

  constructor(
    options: {
      text: string;
      parseName: string;
      name: string;
      trees: Trees;
      funcs: ReadonlyMap<string, TemplateFunc>;
      depth: number;
      deepest: Deepest;
      out: string[];
    },
    dot: Value,
  ) {
    this.#text = options.text;
    this.#parseName = options.parseName;
    this.#name = options.name;
    this.#trees = options.trees;
    this.#funcs = options.funcs;
    this.#depth = options.depth;
    this.#deepest = options.deepest;
    this.out = options.out;
    this.vars = [{ name: "$", value: dot }];
  }

  at(node: Node): void {
    this.node = node;
  }

  errorf(message: string): never {
    const name = quote(this.#name);
    if (this.node === undefined) throw new TemplateExecError(`template: ${this.#name}: ${message}`);
    const pos = this.node.pos;
    const before = this.#text.slice(0, pos);
    const nl = before.lastIndexOf("\n");
    const col = nl === -1 ? pos : pos - (nl + 1);
    const line = 1 + (before.match(/\n/g)?.length ?? 0);
    const where = `${this.#parseName}:${line}:${col}`;
    throw new TemplateExecError(
      `template: ${where}: executing ${name} at <${nodeString(this.node)}>: ${message}`,
    );
  }

  varValue(name: string): Value {
    for (let i = this.vars.length - 1; i >= 0; i--)
      if (this.vars[i]?.name === name) return this.vars[i]?.value;
    return this.errorf(`undefined variable: ${name}`);
  }

  setVar(name: string, value: Value): void {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      const v = this.vars[i];
      if (v?.name === name) {
        v.value = value;
        return;
      }
    }
    this.errorf(`undefined variable: ${name}`);
  }

  walk(dot: Value, node: Node): void {
    this.at(node);
    switch (node.type) {
      case "action": {
        const val = this.evalPipeline(dot, node.pipe);
        if (node.pipe.decl.length === 0) this.printValue(node, val);
        return;
      }
      case "break":
        throw BREAK;
      case "continue":
        throw CONTINUE;
      case "comment":
        return;
      case "if":
      case "with": {
        const mark = this.vars.length;
        try {
          const val = this.evalPipeline(dot, node.pipe);
          if (isTrue(val)) this.walk(node.type === "with" ? val : dot, node.list);
          else if (node.elseList !== undefined) this.walk(dot, node.elseList);
        } finally {
          this.vars.length = mark;
        }
        return;
      }
      case "list":
        for (const n of node.nodes) this.walk(dot, n);
        return;
      case "range":
        this.walkRange(dot, node);
        return;
      case "template":
        this.walkTemplate(dot, node);
        return;
      case "text":
        this.out.push(node.text);
        return;
      default:
        this.errorf(`unknown node: ${nodeString(node)}`);
    }
  }

  walkRange(dot: Value, r: BranchNode): void {
    this.at(r);
    const mark = this.vars.length;
    try {
      const val = this.evalPipeline(dot, r.pipe);
      // Nothing a template over nil data can make is iterable (Go 1.19 ranges over arrays, slices, maps and
      // channels only); no value acts as an empty map.
      if (val !== undefined) this.errorf(`range can't iterate over ${sprint([val])}`);
      if (r.elseList !== undefined) this.walk(dot, r.elseList);
    } finally {
      this.vars.length = mark;
    }
  }

  walkTemplate(dot: Value, t: Node & { type: "template" }): void {
    this.at(t);
    const tree = this.#trees.get(t.name);
    if (tree === undefined) this.errorf(`template ${quote(t.name)} not defined`);
    if (this.#depth === MAX_EXEC_DEPTH) this.errorf(`exceeded maximum template depth (${MAX_EXEC_DEPTH})`);
    const newDot = this.evalPipeline(dot, t.pipe);
    const state = new State(
      {
        text: this.#text,
        parseName: this.#parseName,
        name: t.name,
        trees: this.#trees,
        funcs: this.#funcs,
        depth: this.#depth + 1,
        deepest: this.#deepest,
        out: this.out,
      },
      newDot,
    );
    if ((this.#deepest.depth ?? -1) < this.#depth) {
      this.#deepest.depth = this.#depth;
      this.#deepest.caller = this;
      this.#deepest.node = t;
    }
    state.walk(newDot, tree.root);
  }

  evalPipeline(dot: Value, pipe: PipeNode | undefined): Value {
    if (pipe === undefined) return undefined;
    this.at(pipe);
    let value: Final = MISSING;
    for (const cmd of pipe.cmds) value = this.evalCommand(dot, cmd, value);
    const result = value === MISSING ? undefined : value;
    for (const variable of pipe.decl) {
      const name = variable.ident[0] as string;
      if (pipe.isAssign) this.setVar(name, result);
      else this.vars.push({ name, value: result });
    }
    return result;
  }

  notAFunction(args: readonly Node[], final: Final): void {
    if (args.length > 1 || final !== MISSING)
      this.errorf(`can't give argument to non-function ${nodeString(args[0] as Node)}`);
  }

  evalCommand(dot: Value, cmd: CommandNode, final: Final): Value {
    const first = cmd.args[0] as Node;
    switch (first.type) {
      case "field":
        return this.evalFieldNode(dot, first, cmd.args, final);
      case "chain":
        return this.evalChainNode(dot, first, cmd.args, final);
      case "identifier":
        return this.evalFunction(dot, first, cmd, cmd.args, final);
      case "pipe":
        this.notAFunction(cmd.args, final);
        return this.evalPipeline(dot, first);
      case "variable":
        return this.evalVariableNode(dot, first, cmd.args, final);
    }
    this.at(first);
    this.notAFunction(cmd.args, final);
    switch (first.type) {
      case "bool":
        return bool(first.value);
      case "dot":
        return dot;
      case "nil":
        return this.errorf("nil is not a command");
      case "number":
        return this.idealConstant(first);
      case "string":
        return str(first.text);
    }
    return this.errorf(`can't evaluate command ${quote(nodeString(first))}`);
  }

  idealConstant(c: NumberNode): Value {
    this.at(c);
    const hexInt = /^0[xX]/.test(c.text) && !/[pP]/.test(c.text);
    if (c.isComplex) return { kind: "complex128", re: c.complex.re, im: c.complex.im };
    if (c.isFloat && !hexInt && c.text[0] !== "'" && /[.eEpP]/.test(c.text))
      return { kind: "float64", v: c.float64 };
    if (c.isInt) return int(c.int64);
    if (c.isUint) this.errorf(`${c.text} overflows int`);
    return undefined;
  }

  evalFieldNode(dot: Value, field: FieldNode, args: readonly Node[], final: Final): Value {
    this.at(field);
    return this.evalFieldChain(dot, field, field.ident, args, final);
  }

  evalChainNode(dot: Value, chain: ChainNode, args: readonly Node[], final: Final): Value {
    this.at(chain);
    if (chain.node.type === "nil") this.errorf(`indirection through explicit nil in ${nodeString(chain)}`);
    const pipe = this.evalArg(dot, undefined, chain.node);
    return this.evalFieldChain(pipe, chain, chain.field, args, final);
  }

  evalVariableNode(_dot: Value, variable: VariableNode, args: readonly Node[], final: Final): Value {
    this.at(variable);
    const value = this.varValue(variable.ident[0] as string);
    if (variable.ident.length === 1) {
      this.notAFunction(args, final);
      return value;
    }
    return this.evalFieldChain(value, variable, variable.ident.slice(1), args, final);
  }

  /** A field of no value is no value (nil data); no value a template can hold has fields or methods. */
  evalFieldChain(
    receiver: Value,
    _node: Node,
    ident: readonly string[],
    _args: readonly Node[],
    _final: Final,
  ): Value {
    for (const name of ident) {
      if (receiver === undefined) return undefined;
      this.errorf(`can't evaluate field ${name} in type ${typeName(receiver)}`);
    }
    return receiver;
  }

  evalFunction(
    dot: Value,
    node: IdentifierNode,
    cmd: Node,
    args: readonly Node[] | undefined,
    final: Final,
  ): Value {
    this.at(node);
    const fn = this.#funcs.get(node.ident);
    if (fn === undefined) return this.errorf(`${quote(node.ident)} is not a defined function`);
    return this.evalCall(dot, fn, cmd, node.ident, args, final);
  }

  evalCall(
    dot: Value,
    fn: TemplateFunc,
    node: Node,
    name: string,
    allArgs: readonly Node[] | undefined,
    final: Final,
  ): Value {
    const args = allArgs === undefined ? [] : allArgs.slice(1);
    const numIn = args.length + (final === MISSING ? 0 : 1);
    const numFixed = fn.variadic === undefined ? args.length : fn.params.length;
    const want = fn.params.length + (fn.variadic === undefined ? 0 : 1);
    if (fn.variadic !== undefined) {
      if (numIn < numFixed)
        this.errorf(`wrong number of args for ${name}: want at least ${fn.params.length} got ${args.length}`);
    } else if (numIn !== want) this.errorf(`wrong number of args for ${name}: want ${want} got ${numIn}`);
    if (name === "and" || name === "or") {
      // Special case: stop at the first argument that decides, as Go's evalCall does.
      let v: Value;
      for (const arg of args) {
        v = this.evalArg(dot, "value", arg);
        if (isTrue(v) === (name === "or")) return v;
      }
      if (final !== MISSING) v = final;
      return v;
    }
    const argv: Value[] = [];
    let i = 0;
    for (; i < numFixed && i < args.length; i++)
      argv.push(this.evalArg(dot, fn.params[i] as ParamType, args[i] as Node));
    if (fn.variadic !== undefined)
      for (; i < args.length; i++) argv.push(this.evalArg(dot, fn.variadic, args[i] as Node));
    if (final !== MISSING) {
      const t =
        fn.variadic === undefined || numIn - 1 < numFixed ? (fn.params[numIn - 1] as ParamType) : fn.variadic;
      argv.push(this.validateType(final, t));
    }
    try {
      return fn.call(argv);
    } catch (error) {
      if (!(error instanceof FuncError)) throw error;
      this.at(node);
      return this.errorf(`error calling ${name}: ${error.message}`);
    }
  }

  /** Go's validateType: a value given to a parameter of type `typ` (undefined: the receiver of a chain). */
  validateType(value: Value, typ: ParamType | undefined): Value {
    if (value === undefined) {
      if (typ === undefined || typ === "value") return undefined;
      if (typ === "any") return NIL;
      return this.errorf(`invalid value; expected ${typ}`);
    }
    if (typ === "string" && value.kind !== "string")
      this.errorf(`wrong type for value; expected string; got ${typeName(value)}`);
    return value;
  }

  evalArg(dot: Value, typ: ParamType | undefined, n: Node): Value {
    this.at(n);
    switch (n.type) {
      case "dot":
        return this.validateType(dot, typ);
      case "nil":
        if (typ === "any") return NIL;
        if (typ === "value") return undefined;
        return this.errorf(`cannot assign nil to ${typ}`);
      case "field":
        return this.validateType(this.evalFieldNode(dot, n, [n], MISSING), typ);
      case "variable":
        return this.validateType(this.evalVariableNode(dot, n, [], MISSING), typ);
      case "pipe":
        return this.validateType(this.evalPipeline(dot, n), typ);
      case "identifier":
        return this.validateType(this.evalFunction(dot, n, n, undefined, MISSING), typ);
      case "chain":
        return this.validateType(this.evalChainNode(dot, n, [], MISSING), typ);
    }
    if (typ === "string") {
      if (n.type === "string") return str(n.text);
      return this.errorf(`expected string; found ${nodeString(n)}`);
    }
    // An `any` or a reflect.Value: Go's evalEmptyInterface.
    switch (n.type) {
      case "bool":
        return bool(n.value);
      case "number":
        return this.idealConstant(n);
      case "string":
        return str(n.text);
    }
    return this.errorf(`can't handle ${nodeString(n)} for arg of type ${typ}`);
  }

  printValue(n: Node, v: Value): void {
    this.at(n);
    this.out.push(v === undefined ? "<no value>" : sprint([v]));
  }
}

/**
 * Executes the template `name` of a parsed set with nil data, as Go's `tmpl.Execute(w, nil)`.
 *
 * @param text the template text the trees were parsed from (for error positions)
 * @returns the output, a byte string
 * @throws {TemplateExecError} worded as Go's
 */
export function executeTemplate(
  trees: TreeSet,
  options: { name: string; text: string; funcs: ReadonlyMap<string, TemplateFunc> },
): string {
  const out: string[] = [];
  const deepest: Deepest = {};
  const state = new State({ ...options, parseName: options.name, trees, depth: 0, deepest, out }, undefined);
  const tree = trees.get(options.name);
  if (tree === undefined) return state.errorf(`${quote(options.name)} is an incomplete or empty template`);
  try {
    state.walk(undefined, tree.root);
  } catch (error) {
    // Template calls hundreds deep when the stack ran out: a template calling itself, as Go reports it.
    if (isStackOverflow(error) && (deepest.depth ?? 0) >= RECURSION && deepest.caller && deepest.node) {
      // Node's stack ends long before Go's 100000 calls: reported as Go reports its limit.
      deepest.caller.at(deepest.node);
      deepest.caller.errorf(`exceeded maximum template depth (${MAX_EXEC_DEPTH})`);
    }
    throw error;
  }
  return out.join("");
}
