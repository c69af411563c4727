import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { FILTER_TERM, matchesFilter, parseGroupFilter } from "./group-filter.js";

const terms = (input: string) => {
  const parsed = parseGroupFilter(input);
  assert.ok(parsed.ok, input);
  return parsed.terms;
};

test("parseGroupFilter reads label matchers with quoted or bare values, and words", () => {
  assert.deepEqual(terms(' job="a b" , env!=prod x=~"d\\"b.*" y!~z word "two words"'), [
    { kind: "label", name: "job", op: "=", value: "a b" },
    { kind: "label", name: "env", op: "!=", value: "prod" },
    { kind: "label", name: "x", op: "=~", value: 'd"b.*' },
    { kind: "label", name: "y", op: "!~", value: "z" },
    { kind: "text", text: "word" },
    { kind: "text", text: "two words" },
  ]);
  assert.deepEqual(terms(""), []);
  assert.deepEqual(terms('env=""'), [{ kind: "label", name: "env", op: "=", value: "" }]);
});

test("parseGroupFilter names what it cannot read", () => {
  assert.deepEqual(parseGroupFilter("job=~(a"), {
    ok: false,
    error:
      'invalid regular expression in job=~"(a": Invalid regular expression: /^(?:(a)$/s: Unterminated group',
  });
});

test("matchesFilter: every term must hold; a missing label is the empty value; regexes are anchored", () => {
  const labels = { job: "backup", instance: "db1" };
  assert.equal(matchesFilter(labels, terms("job=backup instance=db1")), true);
  assert.equal(matchesFilter(labels, terms("job=back")), false);
  assert.equal(matchesFilter(labels, terms("job=~back")), false, "anchored as PromQL");
  assert.equal(matchesFilter(labels, terms("job=~back.*")), true);
  assert.equal(matchesFilter(labels, terms('env=""')), true);
  assert.equal(matchesFilter(labels, terms("env!=prod")), true);
  assert.equal(matchesFilter(labels, terms("instance!~db.")), false);
  assert.equal(matchesFilter(labels, terms("DB1")), true, 'words match name="value" case-insensitively');
  assert.equal(matchesFilter(labels, terms("nothing")), false);
});

test("the page's script reads the filter with the same expression as the server", () => {
  // Built as dist/src/group-filter.test.js, two levels below the package.
  const script = readFileSync(new URL("../../static/pushgateway.js", import.meta.url), "utf8");
  assert.ok(script.includes(`/${FILTER_TERM.source}/y`), "static/pushgateway.js has FILTER_TERM");
});
