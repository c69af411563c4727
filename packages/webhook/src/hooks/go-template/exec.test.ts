// Every template of Go's own text/template tests (exec_test.go, parse_test.go, lex_test.go, multi_test.go), run with
// nil data by ours and by Go 1.19.8 (the Go of Debian's webhook 2.8.0): the same output or the same error, word for
// word. Recorded with scripts/go-template-oracle.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  answer,
  goTemplateFixture,
  type TemplateAnswer,
} from "../../../test/support/go-template-fixtures.js";

const expected = ({ template, out, err }: TemplateAnswer): TemplateAnswer =>
  err === undefined ? { template, out: out ?? "" } : { template, err };

test("the templates of Go's text/template tests give Go's output or Go's error", () => {
  const answers = goTemplateFixture<TemplateAnswer[]>("go1.19-go-test-templates.json");
  assert.ok(answers.length >= 450);
  assert.ok(answers.filter((a) => a.err !== undefined).length >= 200, "errors are compared too");
  for (const a of answers) assert.deepEqual(answer(a.template), expected(a));
});

test("800 random templates (seeded, scripts/go-template-oracle/random-templates.py) give Go's output or error", () => {
  const answers = goTemplateFixture<TemplateAnswer[]>("go1.19-random-templates.json");
  assert.equal(answers.length, 800);
  for (const a of answers) assert.deepEqual(answer(a.template), expected(a));
});

test("a template that recurses without end fails as Go's does instead of crashing", () => {
  // Go 1.19's words; Go gets there after 100000 calls, Node's stack ends earlier.
  assert.deepEqual(answer('{{ define "a" }}{{ template "a" }}{{ end }}{{ template "a" }}'), {
    template: '{{ define "a" }}{{ template "a" }}{{ end }}{{ template "a" }}',
    err: 'template: hooks:1:28: executing "a" at <{{template "a"}}>: exceeded maximum template depth (100000)',
  });
});

test("nesting deeper than Node's stack is refused with a clear error, never a crash", () => {
  for (const template of [
    `{{${"(".repeat(20000)}1${")".repeat(20000)}}}`,
    `${"{{if 1}}".repeat(20000)}${"{{end}}".repeat(20000)}`,
  ]) {
    const got = answer(template);
    assert.match(got.err ?? "", /^template: hooks: nested too deeply for this server/);
  }
  // A depth hooks files could plausibly have is fine.
  assert.deepEqual(answer(`{{${"(".repeat(200)}1${")".repeat(200)}}}`).out, "1");
  assert.deepEqual(answer(`${"{{if 1}}".repeat(200)}x${"{{end}}".repeat(200)}`).out, "x");
});
