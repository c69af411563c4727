// Node.String() of Go 1.19's parse/node.go, the text Go's execution errors show as their context, and IsEmptyTree.
// (Every template of the fixtures is also printed and compared with Go's in parse.test.ts.)
import assert from "node:assert/strict";
import { test } from "node:test";
import { toBytes } from "./go-text.js";
import { isEmptyTree, nodeString } from "./nodes.js";
import { parseTemplate } from "./parse.js";

const FUNCS = new Set(["printf", "getenv", "eq"]);
const root = (text: string) => parseTemplate("t", toBytes(text), FUNCS).get("t")?.root;

test("String() of each kind of node (parse_test.go parseTests results)", () => {
  const cases: [string, string][] = [
    ['{{printf "%d" ( 1 ) | printf}}', '{{printf "%d" (1) | printf}}'],
    ["{{$x := .X | .Y}}", "{{$x := .X | .Y}}"],
    ["{{if .X}}a{{else if .Y}}b{{else}}c{{end}}", "{{if .X}}a{{else}}{{if .Y}}b{{else}}c{{end}}{{end}}"],
    [
      "{{range $i, $e := .}}{{break}}{{continue}}{{end}}",
      "{{range $i, $e := .}}{{break}}{{continue}}{{end}}",
    ],
    ["{{with 1}}{{end}}", "{{with 1}}{{end}}"],
    ['{{template "x" .}}', '{{template "x" .}}'],
    ["{{(getenv `a`).X.Y}}", "{{(getenv `a`).X.Y}}"],
    ["{{nil | printf}}{{true}}{{'a'}}{{1.5e3}}", "{{nil | printf}}{{true}}{{'a'}}{{1.5e3}}"],
  ];
  for (const [input, want] of cases) {
    const r = root(input);
    assert.ok(r !== undefined);
    assert.equal(nodeString(r), want, input);
  }
});

test("IsEmptyTree: only comments and white space (Unicode spaces too)", () => {
  assert.equal(isEmptyTree(root(" \t\n{{/* c */}}\u00a0")), true);
  assert.equal(isEmptyTree(root(" x ")), false);
  assert.equal(isEmptyTree(root("{{1}}")), false);
  assert.equal(isEmptyTree(undefined), true);
});
