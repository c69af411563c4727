import { LosslessNumber } from "lossless-json";

/** A decoded value, or Go's error text for why it could not be decoded. */
export type Decoded = { readonly value: unknown } | { readonly error: string };

/**
 * Decodes the first JSON value of `text` as Go's `json.Decoder` with `UseNumber` does for upstream's payloads
 * (webhook.go): numbers keep their source text (as `LosslessNumber`), a repeated object key keeps the last value,
 * whatever follows the first value is ignored, and lone surrogate escapes become U+FFFD. Objects have no prototype,
 * so keys such as `__proto__` are plain data. Error texts are Go's (`EOF`, `unexpected EOF`,
 * `invalid character 'b' looking for beginning of value`, …); they only reach the log.
 */
export function decodeGoJson(text: string): Decoded {
  const p = { text, at: 0 };
  skipSpace(p);
  if (p.at >= text.length) return { error: "EOF" };
  try {
    return { value: parseValue(p) };
  } catch (error) {
    if (error instanceof JsonSyntax) return { error: error.message };
    throw error;
  }
}

class JsonSyntax extends Error {}

interface Cursor {
  readonly text: string;
  at: number;
}

function skipSpace(p: Cursor): void {
  while (p.at < p.text.length && " \t\r\n".includes(p.text[p.at] as string)) p.at++;
}

function fail(p: Cursor, context: string): never {
  if (p.at >= p.text.length) throw new JsonSyntax("unexpected EOF");
  throw new JsonSyntax(`invalid character ${quoteChar(p.text[p.at] as string)} ${context}`);
}

/** Go's `quoteChar`. */
function quoteChar(c: string): string {
  if (c === "'") return "'\\''";
  if (c === '"') return "'\"'";
  const quoted = JSON.stringify(c);
  return `'${quoted.slice(1, -1)}'`;
}

function parseValue(p: Cursor): unknown {
  skipSpace(p);
  const c = p.text[p.at];
  if (c === "{") return parseObject(p);
  if (c === "[") return parseArray(p);
  if (c === '"') return parseString(p);
  if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return parseNumber(p);
  for (const [word, value] of [
    ["true", true],
    ["false", false],
    ["null", null],
  ] as const) {
    if (c === word[0]) {
      for (let i = 1; i < word.length; i++) {
        p.at++;
        if (p.text[p.at] !== word[i])
          fail(p, `in literal ${word} (expecting ${quoteChar(word[i] as string)})`);
      }
      p.at++;
      return value;
    }
  }
  return fail(p, "looking for beginning of value");
}

function parseObject(p: Cursor): Record<string, unknown> {
  const obj: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  p.at++;
  skipSpace(p);
  if (p.text[p.at] === "}") {
    p.at++;
    return obj;
  }
  for (;;) {
    skipSpace(p);
    if (p.text[p.at] !== '"') fail(p, "looking for beginning of object key string");
    const key = parseString(p);
    skipSpace(p);
    if (p.text[p.at] !== ":") fail(p, "after object key");
    p.at++;
    obj[key] = parseValue(p);
    skipSpace(p);
    const c = p.text[p.at];
    p.at++;
    if (c === "}") return obj;
    if (c !== ",") {
      p.at--;
      fail(p, "after object key:value pair");
    }
  }
}

function parseArray(p: Cursor): unknown[] {
  const list: unknown[] = [];
  p.at++;
  skipSpace(p);
  if (p.text[p.at] === "]") {
    p.at++;
    return list;
  }
  for (;;) {
    list.push(parseValue(p));
    skipSpace(p);
    const c = p.text[p.at];
    p.at++;
    if (c === "]") return list;
    if (c !== ",") {
      p.at--;
      fail(p, "after array element");
    }
  }
}

const ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

function parseString(p: Cursor): string {
  p.at++;
  let out = "";
  for (;;) {
    const c = p.text[p.at];
    if (c === undefined) fail(p, "in string literal");
    if (c === '"') {
      p.at++;
      return out;
    }
    if (c < " ") fail(p, "in string literal");
    if (c !== "\\") {
      out += c;
      p.at++;
      continue;
    }
    p.at++;
    const e = p.text[p.at] as string;
    if (e in ESCAPES) {
      out += ESCAPES[e];
      p.at++;
    } else if (e === "u") {
      const unit = hex4(p);
      if (unit >= 0xd800 && unit < 0xdc00 && p.text.startsWith("\\u", p.at)) {
        const save = p.at;
        p.at++;
        const low = hex4(p);
        if (low >= 0xdc00 && low < 0xe000) out += String.fromCharCode(unit, low);
        else {
          out += "\ufffd";
          p.at = save;
        }
      } else out += unit >= 0xd800 && unit < 0xe000 ? "\ufffd" : String.fromCharCode(unit);
    } else fail(p, "in string escape code");
  }
}

/** Reads `uXXXX` (the cursor on the `u`) and returns the code unit. */
function hex4(p: Cursor): number {
  p.at++;
  for (let i = 0; i < 4; i++) {
    if (!/[0-9a-fA-F]/.test(p.text[p.at + i] ?? "")) {
      p.at += i;
      fail(p, "in \\u hexadecimal character escape");
    }
  }
  const unit = Number.parseInt(p.text.slice(p.at, p.at + 4), 16);
  p.at += 4;
  return unit;
}

function parseNumber(p: Cursor): LosslessNumber {
  const start = p.at;
  const digits = () => {
    const from = p.at;
    while (p.text[p.at] !== undefined && (p.text[p.at] as string) >= "0" && (p.text[p.at] as string) <= "9")
      p.at++;
    return p.at - from;
  };
  if (p.text[p.at] === "-") p.at++;
  if (p.text[p.at] === "0") p.at++;
  else if (digits() === 0) fail(p, "in numeric literal");
  if (p.text[p.at] === ".") {
    p.at++;
    if (digits() === 0) fail(p, "after decimal point in numeric literal");
  }
  if (p.text[p.at] === "e" || p.text[p.at] === "E") {
    p.at++;
    if (p.text[p.at] === "+" || p.text[p.at] === "-") p.at++;
    if (digits() === 0) fail(p, "in exponent of numeric literal");
  }
  return new LosslessNumber(p.text.slice(start, p.at));
}
