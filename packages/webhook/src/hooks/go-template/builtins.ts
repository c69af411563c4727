// Go 1.19 text/template's builtin functions (funcs.go) over the values a template can hold (values.ts), and how
// each is declared (parameter types decide how exec.ts converts its arguments, as Go's reflection does).
import { sprint, sprintln } from "./go-format.js";
import { sprintf } from "./go-printf.js";
import { decodeRune, isPrint } from "./go-text.js";
import { bool, type GoValue, int, isTrue, str, typeName, type Value } from "./values.js";

/** How an argument reaches the function: a Go `string`, an `any` (interface{}) or a `reflect.Value`. */
export type ParamType = "string" | "any" | "value";

/** A template function as Go's reflection sees it. Errors it returns are thrown as {@link FuncError}. */
export interface TemplateFunc {
  readonly params: readonly ParamType[];
  /** The element type of a final variadic parameter. */
  readonly variadic?: ParamType;
  // Arguments by the declared type: string → a string GoValue; any → a GoValue (nil included); value → Value.
  readonly call: (args: readonly Value[]) => Value;
}

/** An error a function returned (Go: its second result), shown as `error calling <name>: <message>`. */
export class FuncError extends Error {}

const fail = (message: string): never => {
  throw new FuncError(message);
};

type Kind = "invalid" | "bool" | "complex" | "int" | "float" | "string" | "uint";

function basicKind(v: Value): Kind {
  if (v === undefined || v.kind === "nil") return "invalid";
  return (
    {
      bool: "bool",
      complex128: "complex",
      int: "int",
      float64: "float",
      string: "string",
      uint8: "uint",
    } as const
  )[v.kind];
}

const num = (v: GoValue): bigint => (v.kind === "int" ? v.v : v.kind === "uint8" ? BigInt(v.v) : 0n);

function eq(arg1: Value, rest: readonly Value[]): boolean {
  if (rest.length === 0) fail("missing argument for comparison");
  const k1 = basicKind(arg1);
  for (const arg of rest) {
    const k2 = basicKind(arg);
    let truth = false;
    if (k1 !== k2) {
      if ((k1 === "int" && k2 === "uint") || (k1 === "uint" && k2 === "int"))
        truth = num(arg1 as GoValue) === num(arg as GoValue);
      else if (arg1 !== undefined && arg !== undefined) fail("incompatible types for comparison");
    } else if (arg1 === undefined || arg === undefined) truth = arg1 === arg;
    else if (arg1.kind === "complex128" && arg.kind === "complex128")
      truth = arg1.re === arg.re && arg1.im === arg.im;
    else truth = num(arg1) === num(arg) && "v" in arg1 && "v" in arg && arg1.v === arg.v;
    if (truth) return true;
  }
  return false;
}

function lt(a: Value, b: Value): boolean {
  const k1 = basicKind(a);
  if (k1 === "invalid") fail("invalid type for comparison");
  const k2 = basicKind(b);
  if (k2 === "invalid") fail("invalid type for comparison");
  const x = a as GoValue;
  const y = b as GoValue;
  if (k1 !== k2) {
    if ((k1 === "int" && k2 === "uint") || (k1 === "uint" && k2 === "int")) return num(x) < num(y);
    return fail("incompatible types for comparison");
  }
  if (k1 === "bool" || k1 === "complex") return fail("invalid type for comparison");
  if (x.kind === "int" || x.kind === "uint8") return num(x) < num(y);
  return (x as { v: number | string }).v < (y as { v: number | string }).v;
}

const le = (a: Value, b: Value) => lt(a, b) || eq(a, [b]);

/** indexArg: an int or uint8 index within 0..cap. */
function indexArg(index: Value, cap: number): number {
  if (index === undefined || index.kind === "nil") return fail("cannot index slice/array with nil");
  if (index.kind !== "int" && index.kind !== "uint8")
    return fail(`cannot index slice/array with type ${typeName(index)}`);
  const x = num(index);
  if (x < 0n || x > BigInt(cap)) fail(`index out of range: ${x}`);
  return Number(x);
}

function index(args: readonly Value[]): Value {
  let item = args[0];
  if (item === undefined) return fail("index of untyped nil");
  for (const i of args.slice(1)) {
    if (item.kind !== "string") return fail(`can't index item of type ${typeName(item)}`);
    const x = indexArg(i, item.v.length);
    if (x === item.v.length) fail("reflect: string index out of range");
    item = { kind: "uint8", v: item.v.charCodeAt(x) };
  }
  return item;
}

function slice(args: readonly Value[]): Value {
  const item = args[0];
  if (item === undefined) return fail("slice of untyped nil");
  const indexes = args.slice(1);
  if (indexes.length > 3) fail(`too many slice indexes: ${indexes.length}`);
  if (item.kind !== "string") return fail(`can't slice item of type ${typeName(item)}`);
  if (indexes.length === 3) fail("cannot 3-index slice a string");
  const idx = [0, item.v.length];
  indexes.forEach((i, k) => {
    idx[k] = indexArg(i, item.v.length);
  });
  const [from = 0, to = 0] = idx;
  if (from > to) fail(`invalid slice index: ${from} > ${to}`);
  return str(item.v.slice(from, to));
}

/** evalArgs of html, js and urlquery: one string as it is, else Sprint with a nil shown as `<no value>`. */
function evalArgs(args: readonly Value[]): string {
  if (args.length === 1 && args[0]?.kind === "string") return args[0].v;
  return sprint(args.map((a) => (a === undefined || a.kind === "nil" ? str("<no value>") : a)));
}

/** template.HTMLEscapeString. */
function htmlEscape(s: string): string {
  const named: Record<string, string> = {
    "\0": "\xef\xbf\xbd",
    '"': "&#34;",
    "'": "&#39;",
    "&": "&amp;",
    "<": "&lt;",
    ">": "&gt;",
  };
  return s.replace(/[\0"'&<>]/g, (c) => named[c] as string);
}

/** template.JSEscapeString. */
function jsEscape(s: string): string {
  const named: Record<string, string> = {
    "\\": "\\\\",
    "'": "\\'",
    '"': '\\"',
    "<": "\\u003C",
    ">": "\\u003E",
    "&": "\\u0026",
    "=": "\\u003D",
  };
  let out = "";
  for (let i = 0; i < s.length; ) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      const n = named[s[i] as string];
      out += n ?? (c < 0x20 ? `\\u00${c.toString(16).toUpperCase().padStart(2, "0")}` : s[i]);
      i++;
      continue;
    }
    const { code, width } = decodeRune(s, i);
    out += isPrint(code) ? s.slice(i, i + width) : `\\u${code.toString(16).toUpperCase().padStart(4, "0")}`;
    i += width;
  }
  return out;
}

/** url.QueryEscape. */
function queryEscape(s: string): string {
  let out = "";
  for (const c of s) {
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (c === " ") out += "+";
    else out += `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

const anyArgs = (args: readonly Value[]) => args as readonly GoValue[];
const strArg = (v: Value) => (v as GoValue & { kind: "string" }).v;

/** Go's builtins; `and` and `or` are evaluated by exec.ts itself (they stop at the first deciding argument). */
export const BUILTINS: ReadonlyMap<string, TemplateFunc> = new Map<string, TemplateFunc>([
  ["and", { params: ["value"], variadic: "value", call: () => fail("unreachable") }],
  ["or", { params: ["value"], variadic: "value", call: () => fail("unreachable") }],
  [
    "call",
    {
      params: ["value"],
      variadic: "value",
      call: ([fn]) => fail(fn === undefined ? "call of nil" : `non-function of type ${typeName(fn)}`),
    },
  ],
  ["html", { params: [], variadic: "any", call: (a) => str(htmlEscape(evalArgs(a))) }],
  ["index", { params: ["value"], variadic: "value", call: index }],
  ["slice", { params: ["value"], variadic: "value", call: slice }],
  ["js", { params: [], variadic: "any", call: (a) => str(jsEscape(evalArgs(a))) }],
  [
    "len",
    {
      params: ["value"],
      call: ([item]) => {
        if (item === undefined) return fail("reflect: call of reflect.Value.Type on zero Value");
        if (item.kind === "string") return int(item.v.length);
        return fail(`len of type ${typeName(item)}`);
      },
    },
  ],
  ["not", { params: ["value"], call: ([a]) => bool(!isTrue(a)) }],
  ["print", { params: [], variadic: "any", call: (a) => str(sprint(anyArgs(a))) }],
  [
    "printf",
    { params: ["string"], variadic: "any", call: ([f, ...a]) => str(sprintf(strArg(f), anyArgs(a))) },
  ],
  ["println", { params: [], variadic: "any", call: (a) => str(sprintln(anyArgs(a))) }],
  ["urlquery", { params: [], variadic: "any", call: (a) => str(queryEscape(evalArgs(a))) }],
  ["eq", { params: ["value"], variadic: "value", call: ([a, ...b]) => bool(eq(a, b)) }],
  ["ge", { params: ["value", "value"], call: ([a, b]) => bool(!lt(a, b)) }],
  ["gt", { params: ["value", "value"], call: ([a, b]) => bool(!le(a, b)) }],
  ["le", { params: ["value", "value"], call: ([a, b]) => bool(le(a, b)) }],
  ["lt", { params: ["value", "value"], call: ([a, b]) => bool(lt(a, b)) }],
  ["ne", { params: ["value", "value"], call: ([a, b]) => bool(!eq(a, [b])) }],
]);

/** A `func(string) string` of the FuncMap (getenv, cat, credential), over byte strings. */
export function stringFunc(fn: (arg: string) => string): TemplateFunc {
  return { params: ["string"], call: ([arg]) => str(fn(strArg(arg))) };
}
