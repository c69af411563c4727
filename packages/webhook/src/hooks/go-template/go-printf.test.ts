// fmt.Sprintf: each row of Go 1.19's fmt/fmt_test.go fmtTests whose value is a literal, as `printf` in a template,
// answered by Go (test/fixtures/go-template/go1.19-fmt-tests.json); and the error forms of doPrintf.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  answer,
  goTemplateFixture,
  type TemplateAnswer,
} from "../../../test/support/go-template-fixtures.js";
import { sprintf } from "./go-printf.js";
import { int, NIL, str } from "./values.js";

test("printf of Go's fmt test rows gives Go's text", () => {
  const answers = goTemplateFixture<TemplateAnswer[]>("go1.19-fmt-tests.json");
  assert.ok(answers.length >= 250);
  for (const a of answers)
    assert.deepEqual(
      answer(a.template),
      a.err === undefined ? { template: a.template, out: a.out ?? "" } : a,
    );
});

test("missing, extra and misplaced arguments are written as Go writes them (fmt_test.go)", () => {
  assert.equal(sprintf("%d %d", [int(1)]), "1 %!d(MISSING)");
  assert.equal(sprintf("%d", [int(1), str("x"), NIL]), "1%!(EXTRA string=x, <nil>)");
  assert.equal(sprintf("%[3]d", [int(1), int(2)]), "%!d(BADINDEX)");
  assert.equal(sprintf("%[2]d %[1]d", [int(1), int(2)]), "2 1");
  assert.equal(sprintf("%[1]d %[1]d extra ignored", [int(1), int(2)]), "1 1 extra ignored");
  assert.equal(sprintf("%", []), "%!(NOVERB)");
  assert.equal(sprintf("%*d", [str("x"), int(1)]), "%!(BADWIDTH)1");
  assert.equal(sprintf("%.*d", [str("x"), int(1)]), "%!(BADPREC)1");
  assert.equal(sprintf("%-*d|", [int(-3), int(1)]), "1  |");
  assert.equal(sprintf("%!", []), "%!!(MISSING)");
});
