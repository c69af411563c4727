// Seeded random Go 1.19 text/templates for test/template-fuzz.peers.test.ts: every action (pipelines, parentheses,
// `:=`/`=`, if/else if/with/range with else, break/continue, define/template/block, comments, trim markers), every
// constant form (ints in each base with `_`, floats, hex floats, imaginary and complex numbers, char constants,
// interpreted and raw strings with escapes, nil, true/false), every builtin with right and wrong arguments (printf with
// random verbs, flags, widths, precisions and argument indexes), `getenv`, and malformed actions. Not drawn: `cat` and
// `credential` (upstream master's, which 2.8.0 does not have: README "Differences that remain") and templates that
// call themselves (Node's stack ends them before Go's 100000 calls: same section).
import type { Rng } from "./parity-fuzz-cases.js";
import {
  BAD_CHARS,
  CHARS,
  complexConst,
  floatConst,
  format,
  intConst,
  stringConst,
} from "./template-fuzz-constants.js";

const FUNCS: Readonly<Record<string, readonly [number, number]>> = {
  and: [1, 3],
  or: [1, 3],
  not: [1, 1],
  len: [1, 1],
  index: [1, 3],
  slice: [1, 4],
  print: [0, 4],
  printf: [1, 5],
  println: [0, 3],
  html: [0, 3],
  js: [0, 3],
  urlquery: [0, 3],
  eq: [1, 4],
  ne: [2, 2],
  lt: [2, 2],
  le: [2, 2],
  gt: [2, 2],
  ge: [2, 2],
  call: [1, 2],
  getenv: [1, 1],
};
const FUNC_NAMES = Object.keys(FUNCS).filter((f) => f !== "call");
/** Functions that take any value last, as a pipeline gives it. */
const ANY_ARGS = ["and", "or", "not", "print", "printf", "println", "html", "js", "urlquery"];
/** What a function's arguments mostly are: `small` is an index. */
type Kind = "int" | "small" | "float" | "string" | "text" | "bool" | "any";
/** Environment both servers run with (`getenv` reads it). */
export const FUZZ_ENV = { DEPLOY_ENV: "prod", QUOTE: `it's "q" <&>`, UNI: "é😀", EMPTY: "" };
const ENV_NAMES = ["DEPLOY_ENV", "QUOTE", "UNI", "EMPTY", "NOPE", "", "é", "PATH_NOT"];
const WORDS = [
  "a",
  "ok",
  "é",
  "😀",
  "x y",
  "#",
  ":",
  "%",
  "'",
  '\\"',
  "<&>",
  "}",
  "{ ",
  " ",
  "\t",
  "-",
  "0",
  "ß",
];
/** One hook's template: `text` (defines at the top, the rest inside `{{if true}}`, which scopes its variables). */
export class TemplateGen {
  readonly #rng: Rng;
  readonly #prefix: string;
  #scopes: string[][] = [[]];
  #defines: string[] = [];
  #ranges = 0;
  #count = 0;
  #malformed: number;
  #wild: boolean;

  constructor(rng: Rng, prefix: string) {
    this.#rng = rng;
    this.#prefix = prefix;
    // About one template in six carries a deliberate defect somewhere; of the others, a third mix types freely (and
    // mostly fail while running, at the first error), the rest keep to arguments that work.
    this.#malformed = rng.chance(0.16) ? 0.08 : 0;
    this.#wild = this.#malformed > 0 || rng.chance(0.33);
  }

  /** What was drawn: `malformed` (a defect somewhere), `wild` (types mixed freely) or `clean`. */
  get kind(): "malformed" | "wild" | "clean" {
    return this.#malformed > 0 ? "malformed" : this.#wild ? "wild" : "clean";
  }

  template(): string {
    const rng = this.#rng;
    let top = "";
    for (let i = 0, n = rng.chance(0.3) ? 1 + rng.int(2) : 0; i < n; i++) {
      const name = `${this.#prefix}d${i}`;
      const saved = this.#scopes;
      this.#scopes = [[]];
      top += `{{define "${name}"}}${this.#body(1)}{{end}}`;
      this.#scopes = saved;
      this.#defines.push(name);
      if (this.#bad(0.2)) top += `{{define "${name}"}}again{{end}}`;
    }
    return `${top}{{if true}}${this.#body(0)}{{end}}`;
  }

  /** `p`, but only in a template drawn to carry defects. */
  #bad(p: number): boolean {
    return this.#malformed > 0 && this.#rng.chance(p);
  }

  #var(): string {
    const all = this.#scopes.flat();
    if (this.#bad(0.15)) return this.#rng.pick(["$undefined", "$x"]);
    if (all.length === 0 || this.#rng.chance(0.1)) return "$";
    return this.#rng.pick(all);
  }

  #declare(): string {
    const name = `$v${this.#count++}`;
    this.#scopes[this.#scopes.length - 1]?.push(name);
    return name;
  }

  /** A declaration `$v := <pipeline>`: the variable is in scope only after its pipeline, as a user writes it. */
  #declaration(depth: number): string {
    const p = this.#pipeline(depth, false);
    return `${this.#declare()} := ${p}`;
  }

  #constant(): string {
    const rng = this.#rng;
    const r = rng.next();
    const bad = this.#malformed > 0;
    if (r < 0.25) return intConst(rng, bad);
    if (r < 0.37) return floatConst(rng, bad);
    if (r < 0.43) return complexConst(rng, bad);
    if (r < 0.52) return this.#bad(0.2) ? rng.pick(BAD_CHARS) : rng.pick(CHARS);
    if (r < 0.8) return stringConst(rng, bad);
    return rng.pick(["nil", "true", "false", "true", "false"]);
  }

  /** An operand of one kind (mostly), so that comparisons and indexing often succeed. */
  #typed(kind: Kind, depth: number): string {
    const rng = this.#rng;
    const bad = this.#malformed > 0;
    if (this.#wild && rng.chance(0.12)) return this.#operand(depth);
    switch (kind) {
      case "int":
        return rng.chance(0.8)
          ? intConst(rng, bad)
          : rng.chance(0.5)
            ? rng.pick(CHARS)
            : `(len ${stringConst(rng, bad)})`;
      case "small":
        return String(this.#wild ? rng.pick([0, 1, 2, 3, 0, 1, -1, 9]) : rng.pick([0, 1, 2, 3]));
      case "text":
        return rng.pick(['"héllo"', '"abcdef"', "`a\\nb`", '(getenv "QUOTE")', '"😀😀"', "(print 1234)"]);
      case "float":
        return floatConst(rng, bad);
      case "string":
        return rng.chance(0.8)
          ? stringConst(rng, bad)
          : rng.pick([
              `(getenv ${JSON.stringify(rng.pick(ENV_NAMES))})`,
              `(print ${this.#operand(depth + 1)})`,
            ]);
      case "bool":
        return rng.chance(0.8) ? rng.pick(["true", "false"]) : `(not ${this.#operand(depth + 1)})`;
      default:
        return this.#operand(depth);
    }
  }

  #operand(depth: number): string {
    const rng = this.#rng;
    const r = rng.next();
    if (r < 0.6 || depth > 2) return this.#constant();
    if (r < 0.72) return this.#var();
    // Dot is nil at the top only: `.X` of what with/range made dot fails, as in Go.
    if (r < 0.78)
      return rng.pick(this.#wild ? [".", ".", "$", ".X", "$.Y", ".X.Y", "$.X.Y"] : ["$", "$.Y", "$.X.Y"]);
    if (r < 0.8 && this.#wild) return `${this.#var()}${rng.pick([".F", ".Len"])}`;
    if (r < 0.97 || !this.#wild) return `(${this.#pipeline(depth + 1, false)})`;
    return `(${this.#pipeline(depth + 1, false)})${rng.pick([".F", ".X.Y"])}`;
  }

  #call(depth: number, piped: boolean): string {
    const rng = this.#rng;
    const name = this.#bad(0.1)
      ? rng.pick(["nosuch", "Printf", "getEnv"])
      : this.#wild && rng.chance(0.03)
        ? "call"
        : rng.pick(piped && !this.#wild ? ANY_ARGS : FUNC_NAMES);
    const [lo, hi] = FUNCS[name] ?? [0, 2];
    let n = lo + rng.int(hi - lo + 1);
    if (piped && n > 0 && (rng.chance(0.9) || !this.#wild)) n--;
    if (!this.#wild && name === "index") n = Math.min(n, 2);
    if (!this.#wild && name === "slice") n = Math.min(n, 3);
    if (this.#bad(0.2) || (this.#wild && rng.chance(0.02))) n += rng.pick([-1, 1, 2]);
    const ordered = ["lt", "le", "gt", "ge"].includes(name) && !this.#wild;
    const kind = rng.pick<Kind>([
      "int",
      "float",
      "string",
      "string",
      ordered ? "int" : "bool",
      this.#wild ? "any" : "int",
    ]);
    const kinds: Kind[] =
      name === "len"
        ? ["string"]
        : name === "index" || name === "slice"
          ? [this.#wild ? "string" : "text", "small", "small", "small"]
          : name === "getenv"
            ? ["string"]
            : ["eq", "ne", "lt", "le", "gt", "ge"].includes(name)
              ? [kind, kind, kind, kind]
              : [];
    const args = Array.from({ length: Math.max(n, 0) }, (_, i) => this.#typed(kinds[i] ?? "any", depth));
    if (name === "eq" && !this.#wild && args.length === 1) args.push(this.#typed(kind, depth));
    if (name === "printf" && args.length > 0 && (rng.chance(0.85) || !this.#wild)) args[0] = format(rng);
    if (name === "slice" && !this.#wild && args.length === 3 && Number(args[1]) > Number(args[2]))
      [args[1], args[2]] = [args[2] as string, args[1] as string];
    if (name === "getenv" && args.length > 0 && rng.chance(0.8))
      args[0] = JSON.stringify(rng.pick(ENV_NAMES));
    // println's line end would end the block scalar's line (a YAML refusal): a clean template mostly quotes it.
    if (name === "println" && !piped && !this.#wild && rng.chance(0.7))
      return `${[name, ...args].join(" ")} | ${rng.pick(["js", "urlquery", 'printf "%q"', 'printf "%x"'])}`;
    return [name, ...args].join(" ");
  }

  #command(depth: number, piped: boolean): string {
    const rng = this.#rng;
    if (piped || rng.chance(0.75)) return this.#call(depth, piped);
    if (this.#bad(0.1)) return rng.pick(["nil", "1 2", ".X 1", "( )", "$x.", "1 | 2"]);
    const operand = this.#operand(depth);
    return operand === "nil" && !this.#wild ? "true" : operand;
  }

  #pipeline(depth: number, decl: boolean): string {
    const rng = this.#rng;
    let p = this.#command(depth, false);
    while (rng.chance(0.25)) p += ` | ${this.#command(depth, true)}`;
    if (decl && rng.chance(0.15)) return `${this.#declare()} := ${p}`; // in scope in its own pipeline, as Go has it
    return p;
  }

  #open(): string {
    return this.#rng.chance(0.15) ? "{{- " : this.#rng.chance(0.2) ? "{{" : "{{ ";
  }

  #close(): string {
    return this.#rng.chance(0.15) ? " -}}" : this.#rng.chance(0.2) ? "}}" : " }}";
  }

  #scoped(depth: number): string {
    this.#scopes.push([]);
    const body = this.#body(depth);
    this.#scopes.pop();
    return body;
  }

  #action(depth: number): string {
    const rng = this.#rng;
    const r = rng.next();
    const o = () => this.#open();
    const c = () => this.#close();
    if (this.#bad(this.#malformed)) return this.#defect();
    if (r < 0.3) return `${o()}${this.#pipeline(0, false)}${c()}`;
    if (r < 0.38) return `${o()}${this.#declaration(0)}${c()}`;
    if (r < 0.42 && (this.#scopes.flat().length > 0 || this.#wild))
      return `${o()}${this.#var()} = ${this.#pipeline(0, false)}${c()}`;
    if (r < 0.5) return rng.pick(WORDS) + rng.pick(WORDS);
    if (r < 0.53)
      return rng.pick(["{{/* c */}}", "{{- /* c */ -}}", " {{/* é\n */}} ", "{{- /**/}}", "{{/* */ -}}"]);
    if (r < 0.55) return rng.pick([" \t ", "\n", "  ", "\r\n", " \r\n\t"]);
    if (depth >= 3) return `${o()}${this.#pipeline(0, false)}${c()}`;
    // A variable declared in the pipeline of if/with/range is in scope until its {{end}} (parse.go parseControl).
    this.#scopes.push([]);
    const control = this.#control(r, depth);
    this.#scopes.pop();
    if (control !== undefined) return control;
    if (r < 0.88 && this.#ranges > 0) return rng.pick(["{{break}}", "{{continue}}", "{{- break -}}"]);
    if (r < 0.94 && (this.#defines.length > 0 || this.#wild)) {
      const name =
        this.#defines.length > 0 && rng.chance(0.8) ? rng.pick(this.#defines) : rng.pick(["nosuch", "hooks"]);
      // "hooks" is the file itself: a call to it recurses without end (README: Node's stack), so never at the top.
      if (name === "hooks") return `{{template "${this.#prefix}none"}}`;
      // A clean template keeps `$` nil everywhere (so `$.X` is <no value>): a template call gets no data or `$`.
      const data = this.#wild ? this.#pipeline(1, false) : "$";
      return `{{template "${name}"${rng.chance(0.5) ? ` ${data}` : ""}}}`;
    }
    const name = `${this.#prefix}b${this.#count++}`;
    const [scopes, ranges] = [this.#scopes, this.#ranges];
    [this.#scopes, this.#ranges] = [[[]], 0];
    const body = this.#body(depth + 1);
    [this.#scopes, this.#ranges] = [scopes, ranges];
    return `{{block "${name}" ${this.#wild ? this.#pipeline(1, false) : "$"}}}${body}{{end}}`;
  }

  #control(r: number, depth: number): string | undefined {
    const rng = this.#rng;
    if (r < 0.66) {
      let s = `{{if ${this.#pipeline(0, true)}}}${this.#scoped(depth + 1)}`;
      while (rng.chance(0.3)) s += `{{else if ${this.#pipeline(0, true)}}}${this.#scoped(depth + 1)}`;
      if (rng.chance(0.5)) s += `{{else}}${this.#scoped(depth + 1)}`;
      return `${s}{{end}}`;
    }
    if (r < 0.74) {
      let s = `{{with ${this.#pipeline(0, true)}}}${this.#scoped(depth + 1)}`;
      if (rng.chance(0.5)) s += `{{else}}${this.#scoped(depth + 1)}`;
      return `${s}{{end}}`;
    }
    if (r < 0.83) {
      const head = rng.pick(["", "", `$k${this.#count++}, $e${this.#count++} := `, `$e${this.#count++} := `]);
      this.#scopes[this.#scopes.length - 1]?.push(...head.split(/[ ,]+/).filter((v) => v.startsWith("$")));
      const target = this.#wild
        ? rng.pick([".", "nil", "$", "3", '"abc"', this.#pipeline(1, false)])
        : rng.pick(["$", "$.X"]);
      this.#ranges++;
      let s = `{{range ${head}${target}}}${this.#scoped(depth + 1)}`;
      this.#ranges--;
      if (rng.chance(0.5)) s += `{{else}}${this.#scoped(depth + 1)}`;
      return `${s}{{end}}`;
    }
    return undefined;
  }

  /** A defect Go's parser or executor refuses (or, for a few, reads in a way that is easy to get wrong). */
  #defect(): string {
    const rng = this.#rng;
    return rng.pick([
      "{{",
      "{{ 1 ",
      "{{end}}",
      "{{else}}",
      "{{if}}{{end}}",
      "{{ $y := }}",
      "{{ .X := 1 }}",
      "{{ 1 2 }}",
      "{{ nosuch }}",
      "{{ $nope }}",
      "{{ $nope = 1 }}",
      "{{ 0x }}",
      "{{ 1e }}",
      "{{ 08 }}",
      "{{ 1__0 }}",
      '{{ "abc }}',
      "{{ `abc }}",
      "{{ | print }}",
      "{{ print | }}",
      "{{ range $a, $b, $c := . }}{{end}}",
      "{{ print $v := 1 }}",
      "{{break}}",
      "{{continue}}",
      "{{ (1 }}",
      "{{ 1) }}",
      "{{ .X. }}",
      "{{ $.x.y.z }}",
      "{{/* c */ 1}}",
      "{{/* c }}",
      "{{-3}}",
      "{{3 -}}",
      "{{ if 1 }}{{ else with 2 }}{{ end }}",
      "{{ with }}{{end}}",
      "{{ template }}",
      "{{ template nosuch }}",
      '{{ block "x" }}{{ end }}',
      '{{ define "x" }}{{ end }}',
      "{{ 1.2.3 }}",
      "{{ 'a }}",
      "{{ @ }}",
      "{{ print\n1 }}",
      "{{ printf }}",
      "{{ index }}",
      "{{ call }}",
      "{{ len }}",
      "{{ not }}",
      "{{ and }}",
      "{{ eq }}",
      "{{ html 1 | print | nosuch }}",
      "{{ 1 | 2 }}",
      "{{ nil | print }}",
      "{{ print nil | nil }}",
      "{{ true.X }}",
      "{{ 'a'.X }}",
      "{{ $ := 1 }}",
      "{{ $x := 1 }}{{ $x := 2 }}",
      "{{ end 1 }}",
      "{{ else 1 }}",
      "{{ range }}{{ end }}",
      "{{ }}",
      "{{-}}",
      "{{- -}}",
    ]);
  }

  #body(depth: number): string {
    let s = "";
    for (let i = 0, n = 1 + this.#rng.int(depth === 0 ? 5 : 3); i < n; i++) s += this.#action(depth);
    return s;
  }
}

/** How the output stands in the hooks file: framed in a block scalar, as a plain, double- or single-quoted one, or
 * in a JSON file's string. */
export type Embedding = "block" | "plain" | "double" | "single" | "json";
export const EMBEDDINGS: readonly Embedding[] = [
  "block",
  "block",
  "block",
  "block",
  "plain",
  "plain",
  "double",
  "single",
  "json",
];

/**
 * A hooks file whose one hook `t<id>` answers with the template's output. In a block scalar `[` and `]` frame it, so
 * the block's indentation is the file's and trailing spaces show; the other forms give YAML what the template wrote
 * to type (`true`, `0x1F`), fold, unescape (`\x41`, `\N`) or refuse (`a: b`, `#`, `&`).
 */
export function hooksFile(template: string, id: number, embedding: Embedding = "block"): string {
  const text = template.replaceAll("\n", "\n    ");
  const value =
    embedding === "block"
      ? `|-\n    [${text}]`
      : embedding === "plain"
        ? text
        : embedding === "double"
          ? `"${text}"`
          : `'${text}'`;
  // A JSON file (read as YAML too): the output as a string of a flow mapping.
  if (embedding === "json")
    return `[{"id": "t${id}", "execute-command": "/bin/true", "response-message": "${template}"}]\n`;
  return `- id: t${id}\n  execute-command: /bin/true\n  response-message: ${value}\n`;
}
