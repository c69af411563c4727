// Templates as hooks files use them (if/else, printf, variables, define/template, trimming, every builtin, errors),
// answered by Go 1.19.8 (test/fixtures/go-template/go1.19-answers.json, scripts/go-template-oracle).
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  answer,
  goTemplateFixture,
  type TemplateAnswer,
} from "../../../test/support/go-template-fixtures.js";
import { runGoTemplate } from "./template.js";

test("hooks-file templates give Go's output or Go's error, word for word", () => {
  const answers = goTemplateFixture<TemplateAnswer[]>("go1.19-answers.json");
  assert.ok(answers.length >= 140);
  for (const a of answers)
    assert.deepEqual(
      answer(a.template),
      a.err === undefined ? { template: a.template, out: a.out ?? "" } : a,
    );
});

test("text is read and written as UTF-8; functions get and give UTF-8 text", () => {
  const seen: string[] = [];
  const out = runGoTemplate("hooks", 'é{{ getenv "ü" }}{{ len "ü" }}', {
    getenv: (k) => {
      seen.push(k);
      return "→";
    },
  });
  assert.equal(out, "é→2");
  assert.deepEqual(seen, ["ü"]);
});
