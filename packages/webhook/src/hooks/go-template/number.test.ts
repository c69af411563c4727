// Number constants against Go 1.19's parse.NumberNode: parse_test.go's numberTests plus overflow and syntax cases,
// with every field Go sets (test/fixtures/go-template/go1.19-parse-trees.json, scripts/go-template-oracle/parse).
import assert from "node:assert/strict";
import { test } from "node:test";
import { answer, goTemplateFixture } from "../../../test/support/go-template-fixtures.js";
import { sprint } from "./go-format.js";
import { toBytes } from "./go-text.js";
import { newNumber } from "./number.js";
import { parseTemplate, TemplateParseError } from "./parse.js";

interface GoNumber {
  readonly text: string;
  readonly err?: string;
  readonly isInt?: boolean;
  readonly isUint?: boolean;
  readonly isFloat?: boolean;
  readonly isComplex?: boolean;
  readonly int64?: string;
  readonly uint64?: string;
  readonly float64?: string;
  readonly re?: number;
  readonly im?: number;
}

/** Ours, through the parser as Go's recording went (so lexer errors show as Go's do). */
function ours(text: string): GoNumber {
  try {
    const set = parseTemplate("n", toBytes(`{{${text}}}`), new Set());
    const action = set.get("n")?.root.nodes[0];
    const n = action?.type === "action" ? action.pipe.cmds[0]?.args[0] : undefined;
    assert.ok(n?.type === "number");
    return {
      text,
      isInt: n.isInt,
      isUint: n.isUint,
      isFloat: n.isFloat,
      isComplex: n.isComplex,
      int64: String(n.int64),
      uint64: String(n.uint64),
      float64: sprint([{ kind: "float64", v: n.float64 }]),
      re: n.complex.re,
      im: n.complex.im,
    };
  } catch (error) {
    if (!(error instanceof TemplateParseError)) throw error;
    return { text, err: error.message };
  }
}

test("every number constant reads as Go's NumberNode, or fails as Go's", () => {
  const { numbers } = goTemplateFixture<{ numbers: GoNumber[] }>("go1.19-parse-trees.json");
  assert.ok(numbers.length >= 55);
  for (const n of numbers)
    assert.deepEqual(ours(n.text), n.err === undefined ? n : { text: n.text, err: n.err });
});

test("newNumber wording of its own errors", () => {
  assert.throws(() => newNumber(0, "08", "number"), { message: 'integer overflow: "08"' });
  assert.throws(() => newNumber(0, "1e400", "number"), { message: 'illegal number syntax: "1e400"' });
  assert.throws(() => newNumber(0, "'ab'", "charConstant"), {
    message: "malformed character constant: 'ab'",
  });
});

test("a complex constant is split and read as fmt.Sscan does it, with fmt's and strconv's errors", () => {
  // Go 1.19.8's answers (scripts/go-template-oracle/execute); the template fuzzer found each form.
  const cases: Array<[string, { out: string } | { err: string }]> = [
    ["{{ 0x1P-51+4i }}", { out: "(4.440892098500626e-16+4i)" }],
    ["{{ 3E+21+8i }}", { out: "(3e+21+8i)" }],
    ["{{ -255.981E-0+0.i }}", { out: "(-255.981+0i)" }],
    ["{{ 07+1i }}", { out: "(7+1i)" }],
    ["{{ 1e400+1i }}", { err: 'template: hooks:1: strconv.ParseFloat: parsing "1e400": value out of range' }],
    [
      "{{ 1+1e400i }}",
      { err: 'template: hooks:1: strconv.ParseFloat: parsing "+1e400": value out of range' },
    ],
    ["{{ 0x1e+2i }}", { err: 'template: hooks:1: strconv.ParseFloat: parsing "0x1e": invalid syntax' }],
    ["{{ 1+.i }}", { err: 'template: hooks:1: strconv.ParseFloat: parsing "+.": invalid syntax' }],
    ["{{ 0b1+1i }}", { err: "template: hooks:1: syntax error scanning complex number" }],
    ["{{ 1i+2i }}", { err: "template: hooks:1: syntax error scanning complex number" }],
  ];
  for (const [template, expected] of cases) assert.deepEqual(answer(template), { template, ...expected });
});
