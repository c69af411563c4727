// The parser against Go 1.19's text/template/parse: for every template of the fixtures (Go's own test templates and
// the hooks-file ones), the same named trees, printed by Go's Node.String(), or the same error
// (test/fixtures/go-template/go1.19-parse-trees.json, recorded by scripts/go-template-oracle/parse).
import assert from "node:assert/strict";
import { test } from "node:test";
import { goTemplateFixture } from "../../../test/support/go-template-fixtures.js";
import { fromBytes, toBytes } from "./go-text.js";
import { nodeString } from "./nodes.js";
import { parseTemplate, TemplateParseError } from "./parse.js";

interface Parsed {
  readonly input: string;
  readonly trees?: Record<string, string>;
  readonly err?: string;
}

const FUNCS = new Set(
  "and call html index slice js len not or print printf println urlquery eq ge gt le lt ne getenv".split(" "),
);

function parsed(input: string): Parsed {
  try {
    const set = parseTemplate("hooks", toBytes(input), FUNCS);
    const names = [...set.keys()].sort();
    const trees = Object.fromEntries(
      names.map((n) => [
        fromBytes(n),
        fromBytes(nodeString(set.get(n)?.root ?? { type: "list", pos: 0, nodes: [] })),
      ]),
    );
    return { input, trees };
  } catch (error) {
    if (!(error instanceof TemplateParseError)) throw error;
    return { input, err: fromBytes(error.message) };
  }
}

test("every template parses to Go's trees, or fails with Go's error and line", () => {
  const { trees } = goTemplateFixture<{ trees: Parsed[] }>("go1.19-parse-trees.json");
  assert.ok(trees.length >= 600);
  for (const t of trees) assert.deepEqual(parsed(t.input), t);
});

test("a function the template does not know is refused while parsing, as Go's", () => {
  assert.deepEqual(parsed('{{ cat "x" }}'), {
    input: '{{ cat "x" }}',
    err: 'template: hooks:1: function "cat" not defined',
  });
});
