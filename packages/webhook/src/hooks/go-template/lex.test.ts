// The lexer's items for inputs of Go 1.19's parse/lex_test.go lexTests (types, values, lines and positions).
import assert from "node:assert/strict";
import { test } from "node:test";
import { toBytes } from "./go-text.js";
import { Lexer } from "./lex.js";
import type { Item } from "./lex-item.js";

function items(input: string): [string, string][] {
  const l = new Lexer(input);
  const out: [string, string][] = [];
  for (;;) {
    const i: Item = l.nextItem();
    out.push([i.type, i.val]);
    if (i.type === "EOF" || i.type === "error") return out;
  }
}

const L: [string, string] = ["leftDelim", "{{"];
const R: [string, string] = ["rightDelim", "}}"];
const EOF: [string, string] = ["EOF", ""];

test("lexTests rows", () => {
  assert.deepEqual(items(""), [EOF]);
  assert.deepEqual(items(" \t\n"), [["text", " \t\n"], EOF]);
  assert.deepEqual(items("now is the time"), [["text", "now is the time"], EOF]);
  assert.deepEqual(items("hello-{{/* this is a comment */}}-world"), [
    ["text", "hello-"],
    ["text", "-world"],
    EOF,
  ]);
  assert.deepEqual(items("{{,@% }}"), [
    L,
    ["char", ","],
    ["char", "@"],
    ["char", "%"],
    ["space", " "],
    R,
    EOF,
  ]);
  assert.deepEqual(items("{{((3))}}"), [
    L,
    ["leftParen", "("],
    ["leftParen", "("],
    ["number", "3"],
    ["rightParen", ")"],
    ["rightParen", ")"],
    R,
    EOF,
  ]);
  assert.deepEqual(items('{{"abc \\n\\t\\" "}}'), [L, ["string", '"abc \\n\\t\\" "'], R, EOF]);
  assert.deepEqual(items('{{`abc\n\t" `}}'), [L, ["rawString", '`abc\n\t" `'], R, EOF]);
  assert.deepEqual(
    items("{{1 02 0x14 0X14 -7.2i 1e3 1E3 +1.2e-4 4.2i 1+2i 1_2 0x1.e_fp4 0X1.E_FP4}}")
      .map(([t]) => t)
      .filter((t) => t !== "space"),
    [
      "leftDelim",
      "number",
      "number",
      "number",
      "number",
      "number",
      "number",
      "number",
      "number",
      "number",
      "complex",
      "number",
      "number",
      "number",
      "rightDelim",
      "EOF",
    ],
  );
  assert.deepEqual(
    items(toBytes("{{'a' '\\n' '\\'' '\\\\' '\\u00FF' '\\xFF' '本'}}")).filter(([t]) => t === "charConstant")
      .length,
    7,
  );
  assert.deepEqual(items("{{true false}}"), [L, ["bool", "true"], ["space", " "], ["bool", "false"], R, EOF]);
  assert.deepEqual(items("{{.}}"), [L, ["dot", "."], R, EOF]);
  assert.deepEqual(items("{{nil}}"), [L, ["nil", "nil"], R, EOF]);
  assert.deepEqual(
    items("{{.x . .2 .x.y.z}}").filter(([t]) => t !== "space"),
    [
      L,
      ["field", ".x"],
      ["dot", "."],
      ["number", ".2"],
      ["field", ".x"],
      ["field", ".y"],
      ["field", ".z"],
      R,
      EOF,
    ],
  );
  assert.deepEqual(
    items("{{range if else end with}}")
      .filter(([t]) => t !== "space")
      .map(([t]) => t),
    ["leftDelim", "range", "if", "else", "end", "with", "rightDelim", "EOF"],
  );
  assert.deepEqual(
    items("{{$c := printf $ $hello $23 $ $var.Field .Method}}").filter(([t]) => t !== "space"),
    [
      L,
      ["variable", "$c"],
      ["declare", ":="],
      ["identifier", "printf"],
      ["variable", "$"],
      ["variable", "$hello"],
      ["variable", "$23"],
      ["variable", "$"],
      ["variable", "$var"],
      ["field", ".Field"],
      ["field", ".Method"],
      R,
      EOF,
    ],
  );
  assert.deepEqual(
    items("{{$x = 3}}").filter(([t]) => t !== "space"),
    [L, ["variable", "$x"], ["assign", "="], ["number", "3"], R, EOF],
  );
  assert.deepEqual(items("hello- {{- 3 -}} -world"), [
    ["text", "hello-"],
    L,
    ["number", "3"],
    R,
    ["text", "-world"],
    EOF,
  ]);
  assert.deepEqual(items("hello- {{- /* hello */ -}} -world"), [["text", "hello-"], ["text", "-world"], EOF]);
});

test("lexTests errors", () => {
  assert.deepEqual(items("{{\x01}}").at(-1), ["error", "unrecognized character in action: U+0001"]);
  assert.deepEqual(items('{{"\n"}}').at(-1), ["error", "unterminated quoted string"]);
  assert.deepEqual(items("{{`xx}}").at(-1), ["error", "unterminated raw quoted string"]);
  assert.deepEqual(items("{{'\n}}").at(-1), ["error", "unterminated character constant"]);
  assert.deepEqual(items("{{3k}}").at(-1), ["error", 'bad number syntax: "3k"']);
  assert.deepEqual(items("{{(3}}").at(-1), ["error", "unclosed left paren"]);
  assert.deepEqual(items("{{3)}}").at(-1), ["error", "unexpected right paren U+0029 ')'"]);
  assert.deepEqual(items("hello-{{/*/}}-world").at(-1), ["error", "unclosed comment"]);
  assert.deepEqual(items("hello-{{/* */ }}-world").at(-1), [
    "error",
    "comment ends before closing delimiter",
  ]);
  assert.deepEqual(items("{{").at(-1), ["error", "unclosed action"]);
});

test("items carry byte offsets and lines", () => {
  const l = new Lexer("a\n{{ 1\n2 }}");
  const seen: Item[] = [];
  for (let i = l.nextItem(); i.type !== "EOF"; i = l.nextItem()) seen.push(i);
  assert.deepEqual(
    seen.map((i) => [i.type, i.pos, i.line]),
    [
      ["text", 0, 1],
      ["leftDelim", 2, 2],
      ["space", 4, 2],
      ["number", 5, 2],
      ["space", 6, 2],
      ["number", 7, 3],
      ["space", 8, 3],
      ["rightDelim", 9, 3],
    ],
  );
});
