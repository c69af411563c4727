// Templates run by ours and answered by Go 1.19.8 (the Go of Debian's webhook 2.8.0): test/fixtures/go-template/
// go1.19-answers.json was recorded with record.go there (template.New("hooks").Funcs({getenv}).Parse, Execute with
// nil data, A=x ENV=prod). Cases follow Go's own exec_test.go and parse_test.go tables where they apply to nil data.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { GoTemplateError, runGoTemplate } from "./template.js";

interface Answer {
  readonly template: string;
  readonly out?: string;
  readonly err?: string;
}

const ANSWERS = JSON.parse(
  readFileSync(
    fileURLToPath(new URL("../../../../test/fixtures/go-template/go1.19-answers.json", import.meta.url)),
    "utf8",
  ),
) as Answer[];

const ENV: Record<string, string> = { A: "x", ENV: "prod" };

test("every recorded template gives Go 1.19's output or Go 1.19's error, word for word", () => {
  assert.ok(ANSWERS.length >= 140);
  for (const { template, out, err } of ANSWERS) {
    let got: Answer;
    try {
      got = { template, out: runGoTemplate("hooks", template, { getenv: (k) => ENV[k] ?? "" }) };
    } catch (error) {
      if (!(error instanceof GoTemplateError)) throw error;
      got = { template, err: error.message };
    }
    assert.deepEqual(got, err === undefined ? { template, out: out ?? "" } : { template, err }, template);
  }
});

test("a template that recurses without end fails instead of crashing", () => {
  assert.throws(
    () => runGoTemplate("hooks", '{{ define "a" }}{{ template "a" }}{{ end }}{{ template "a" }}', {}),
    // Go 1.19's words; Go gets there after 100000 calls, Node's stack ends earlier.
    {
      message:
        'template: hooks:1:28: executing "a" at <{{template "a"}}>: exceeded maximum template depth (100000)',
    },
  );
});
