import { SelectorError } from "./errors.js";
import type { GroupingLabels } from "./grouping-key.js";
import { anchoredRegExp } from "./linear-regexp.js";

/** One label matcher of a selector, as PromQL's (`=`, `!=`, `=~`, `!~`; regexes fully anchored). */
export interface LabelMatcher {
  readonly name: string;
  readonly op: "=" | "!=" | "=~" | "!~";
  readonly value: string;
  /** The anchored regular expression of `=~` and `!~`. */
  readonly regex?: RegExp;
}

/** A parsed `match[]` selector: every matcher must hold. */
export type GroupSelector = readonly LabelMatcher[];

const NAME_START = /[A-Za-z_]/;
const NAME_PART = /[A-Za-z0-9_]/;

/**
 * Parses a Prometheus series selector over grouping labels, as `match[]` of Prometheus' HTTP API takes it:
 * `{name op "value", ...}` with the operators `=`, `!=`, `=~`, `!~`, values in `"…"`, `'…'` (Go escapes) or
 * `` `…` `` (raw), label names as identifiers or quoted (UTF-8 names), a trailing comma allowed. A metric name
 * before the braces means nothing for groups and is refused. Regexes are anchored at both ends and `.` matches a
 * newline, as in Prometheus (model/labels/regexp.go), and run in linear time (linear-regexp.ts).
 *
 * @throws {SelectorError} naming the character where reading stopped and what was expected there
 */
export function parseGroupSelector(input: string): GroupSelector {
  const reader = new Reader(input);
  reader.skipSpace();
  if (reader.peek() !== "{") {
    if (NAME_START.test(reader.peek() ?? "")) {
      const at = reader.at;
      const name = reader.identifier();
      reader.at = at;
      reader.fail(
        `a metric name selects nothing among groups; select by grouping labels, e.g. {job="${name}"}`,
      );
    }
    reader.fail(`expected "{" to start the selector, e.g. {job="batch"}`);
  }
  reader.next();
  const matchers: LabelMatcher[] = [];
  for (;;) {
    reader.skipSpace();
    if (reader.peek() === "}") break;
    matchers.push(readMatcher(reader));
    reader.skipSpace();
    const c = reader.peek();
    if (c === ",") {
      reader.next();
      continue;
    }
    if (c === "}") break;
    reader.fail(`expected "," or "}" after a label matcher, got ${reader.shown()}`);
  }
  reader.next();
  reader.skipSpace();
  if (reader.peek() !== undefined) reader.fail(`unexpected ${reader.shown()} after the selector`);
  return matchers;
}

/** Whether a group's grouping labels satisfy every matcher (a missing label matches as `""`, as in PromQL). */
export function selectorMatches(labels: GroupingLabels, selector: GroupSelector): boolean {
  return selector.every((m) => {
    const actual = Object.hasOwn(labels, m.name) ? (labels[m.name] ?? "") : "";
    switch (m.op) {
      case "=":
        return actual === m.value;
      case "!=":
        return actual !== m.value;
      case "=~":
        return m.regex?.test(actual) === true;
      default:
        return m.regex?.test(actual) !== true;
    }
  });
}

/**
 * Whether the selector matches a group that has no labels at all: `{}`, or only matchers an empty value passes
 * (`{job=~".*"}`). Prometheus refuses such a selector as "match[]" (it would select everything); a delete needs
 * `all=true` for it.
 */
export function selectsEverything(selector: GroupSelector): boolean {
  return selectorMatches({}, selector);
}

function readMatcher(reader: Reader): LabelMatcher {
  const c = reader.peek();
  let name: string;
  if (c === '"' || c === "'" || c === "`") name = reader.string();
  else if (c !== undefined && NAME_START.test(c)) name = reader.identifier();
  else reader.fail(`expected a label name, got ${reader.shown()}`);
  if (name === "") reader.fail("a label name must not be empty");
  reader.skipSpace();
  const op = reader.operator();
  reader.skipSpace();
  const q = reader.peek();
  if (q !== '"' && q !== "'" && q !== "`")
    reader.fail(`expected a quoted value after ${name}${op}, got ${reader.shown()}`);
  const valueAt = reader.at;
  const value = reader.string();
  if (op === "=" || op === "!=") return { name, op, value };
  try {
    return { name, op, value, regex: anchoredRegExp(value) };
  } catch (error) {
    throw new SelectorError(
      `parse error at char ${valueAt + 1}: invalid regular expression in ${name}${op}${JSON.stringify(value)}: ${(error as Error).message}`,
    );
  }
}

/** A cursor over the selector text; every failure names its position (1-based, in characters). */
class Reader {
  at = 0;
  readonly #text: string;
  constructor(text: string) {
    this.#text = text;
  }

  peek(): string | undefined {
    return this.#text[this.at];
  }

  next(): string | undefined {
    return this.#text[this.at++];
  }

  skipSpace(): void {
    while (/\s/.test(this.peek() ?? "x")) this.at++;
  }

  /** The character at the cursor, for a message. */
  shown(): string {
    const c = this.peek();
    return c === undefined ? "the end of the selector" : JSON.stringify(c);
  }

  identifier(): string {
    const start = this.at;
    while (NAME_PART.test(this.peek() ?? "")) this.at++;
    return this.#text.slice(start, this.at);
  }

  operator(): LabelMatcher["op"] {
    const two = this.#text.slice(this.at, this.at + 2);
    if (two === "=~" || two === "!~" || two === "!=") {
      this.at += 2;
      return two;
    }
    if (two.startsWith("=")) {
      this.at += 1;
      return "=";
    }
    return this.fail(`expected one of =, !=, =~, !~ after a label name, got ${this.shown()}`);
  }

  /** A quoted string: `"…"`/`'…'` with Go's escapes, `` `…` `` raw. */
  string(): string {
    const quote = this.next();
    const start = this.at - 1;
    let out = "";
    for (;;) {
      const c = this.next();
      if (c === undefined) {
        this.at = start;
        return this.fail(`unterminated quoted string`);
      }
      if (c === quote) return out;
      if (c === "\n" && quote !== "`") {
        this.at--;
        return this.fail("a quoted string must not contain a newline");
      }
      if (c !== "\\" || quote === "`") {
        out += c;
        continue;
      }
      out += this.escape(quote ?? '"');
    }
  }

  escape(quote: string): string {
    const c = this.next();
    const simple: Record<string, string> = {
      "\\": "\\",
      n: "\n",
      t: "\t",
      r: "\r",
      a: "\x07",
      b: "\b",
      f: "\f",
      v: "\v",
    };
    if (c === quote) return quote;
    if (c !== undefined && simple[c] !== undefined) return simple[c];
    const digits = c === "x" ? 2 : c === "u" ? 4 : c === "U" ? 8 : 0;
    const hex = this.#text.slice(this.at, this.at + digits);
    if (digits > 0 && /^[0-9A-Fa-f]+$/.test(hex) && hex.length === digits) {
      const code = Number.parseInt(hex, 16);
      if (code <= 0x10ffff) {
        this.at += digits;
        return String.fromCodePoint(code);
      }
    }
    this.at -= 2;
    return this.fail(`unknown escape sequence \\${c ?? ""} in a quoted string`);
  }

  fail(message: string): never {
    throw new SelectorError(`parse error at char ${this.at + 1}: ${message}`);
  }
}
