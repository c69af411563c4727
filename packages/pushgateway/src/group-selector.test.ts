import assert from "node:assert/strict";
import { test } from "node:test";
import { SelectorError } from "./errors.js";
import { parseGroupSelector, selectorMatches, selectsEverything } from "./group-selector.js";

const plain = (input: string) =>
  parseGroupSelector(input).map(({ name, op, value }) => ({ name, op, value }));

test("parseGroupSelector reads PromQL's four operators, three quotes, quoted names and a trailing comma", () => {
  assert.deepEqual(plain(` { job = "batch-1", env!='prod' , x=~"a|b", y!~\`c\\d+\`, "service.name"="s",} `), [
    { name: "job", op: "=", value: "batch-1" },
    { name: "env", op: "!=", value: "prod" },
    { name: "x", op: "=~", value: "a|b" },
    { name: "y", op: "!~", value: "c\\d+" },
    { name: "service.name", op: "=", value: "s" },
  ]);
  assert.deepEqual(plain("{}"), []);
  assert.deepEqual(plain('{a="q\\"\\n\\x41\\u00e9"}'), [{ name: "a", op: "=", value: 'q"\nAé' }]);
});

test("selectorMatches anchors regexes and treats a missing label as empty", () => {
  const m = (sel: string, labels: Record<string, string>) => selectorMatches(labels, parseGroupSelector(sel));
  assert.equal(m('{job=~"batch-.*"}', { job: "batch-7" }), true);
  assert.equal(m('{job=~"batch"}', { job: "batch-7" }), false);
  assert.equal(m('{job!~"batch-.*"}', { job: "batch-7" }), false);
  assert.equal(m('{instance=""}', { job: "a" }), true);
  assert.equal(m('{instance!=""}', { job: "a" }), false);
  assert.equal(m('{job="a", env="x"}', { job: "a", env: "y" }), false);
  assert.equal(m('{job=~"a.b"}', { job: "a\nb" }), true);
});

test("selectsEverything is Prometheus' rule: no matcher refuses an empty label set", () => {
  assert.equal(selectsEverything(parseGroupSelector("{}")), true);
  assert.equal(selectsEverything(parseGroupSelector('{job=~".*"}')), true);
  assert.equal(selectsEverything(parseGroupSelector('{job=~".+"}')), false);
  assert.equal(selectsEverything(parseGroupSelector('{job!="x"}')), true);
  assert.equal(selectsEverything(parseGroupSelector('{job="x"}')), false);
});

test("parseGroupSelector says where it stopped and what it expected", () => {
  const cases: [string, string][] = [
    ["", 'parse error at char 1: expected "{" to start the selector, e.g. {job="batch"}'],
    [
      'up{job="a"}',
      'parse error at char 1: a metric name selects nothing among groups; select by grouping labels, e.g. {job="up"}',
    ],
    ["{job}", 'parse error at char 5: expected one of =, !=, =~, !~ after a label name, got "}"'],
    ["{job=}", 'parse error at char 6: expected a quoted value after job=, got "}"'],
    ['{job="a" env="b"}', 'parse error at char 10: expected "," or "}" after a label matcher, got "e"'],
    ['{job="a', "parse error at char 6: unterminated quoted string"],
    [
      '{job="a"',
      'parse error at char 9: expected "," or "}" after a label matcher, got the end of the selector',
    ],
    ['{job="a"} x', 'parse error at char 11: unexpected "x" after the selector'],
    ['{job="\\q"}', "parse error at char 7: unknown escape sequence \\q in a quoted string"],
    ['{=~"a"}', 'parse error at char 2: expected a label name, got "="'],
    ['{""="a"}', "parse error at char 4: a label name must not be empty"],
  ];
  for (const [input, message] of cases) {
    assert.throws(() => parseGroupSelector(input), { name: "SelectorError", message }, input);
  }
  assert.throws(
    () => parseGroupSelector('{job=~"(a"}'),
    (e: unknown) =>
      e instanceof SelectorError &&
      e.message.startsWith('parse error at char 7: invalid regular expression in job=~"(a": '),
  );
});
