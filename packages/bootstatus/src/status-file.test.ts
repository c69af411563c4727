import assert from "node:assert/strict";
import { test } from "node:test";
import { parseStatusJson } from "./status-file.js";

const FILE = "/run/cloud-init/status.json";

test("parseStatusJson() treats every object-valued v1 entry as a stage", () => {
  const v1 = parseStatusJson(
    JSON.stringify({
      v1: { stage: "init", datasource: null, blah: { start: 1.5 }, init: { errors: ["e"] } },
    }),
    FILE,
  );
  assert.deepEqual([...v1.stages.keys()], ["blah", "init"]);
  assert.equal(v1.stage, "init");
  assert.equal(v1.datasource, null);
  assert.deepEqual(v1.problems, []);
});

test("parseStatusJson() distinguishes an absent datasource from null", () => {
  assert.equal(parseStatusJson("{}", FILE).datasource, undefined);
  assert.deepEqual(parseStatusJson("{}", FILE).problems, []);
});

const malformed: [string, RegExp][] = [
  ["not json", /Cannot read \/run\/cloud-init\/status.json: not valid JSON/],
  ["[1]", /expected a JSON object, got an array/],
  ['{"v1": "x"}', /v1 must be an object, got string "x"/],
  ['{"v1": {"init": {"errors": [1]}}}', /v1.init.errors must be an array of strings/],
  ['{"v1": {"init": {"start": "now"}}}', /v1.init.start must be a number or null, got string "now"/],
  ['{"v1": {"init": {"recoverable_errors": []}}}', /v1.init.recoverable_errors must be an object/],
  ['{"v1": {"datasource": 5}}', /v1.datasource must be a string or null, got number 5/],
  ['{"v1": {"datasource": ["DataSourceLXD"]}}', /v1.datasource must be a string or null, got an array/],
  ['{"v1": {"init": {"errors": null}}}', /v1.init.errors must be an array of strings, got null/],
  [
    '{"v1": {"init": {"recoverable_errors": null}}}',
    /v1.init.recoverable_errors must be an object.*got null/,
  ],
];
for (const [text, message] of malformed) {
  test(`parseStatusJson() reports ${text} without throwing`, () => {
    const v1 = parseStatusJson(text, FILE);
    assert.equal(v1.problems.length, 1, v1.problems.join("; "));
    assert.match(v1.problems[0] ?? "", message);
  });
}

test("parseStatusJson() names a BOM, an empty file and a bad token in one line, without quoting the input", () => {
  const problem = (text: string): string => parseStatusJson(text, FILE).problems.join("; ");
  assert.equal(
    problem('\ufeff{"v1": {}}'),
    `Cannot read ${FILE}: not valid JSON: it starts with a UTF-8 byte order mark`,
  );
  assert.equal(problem(" \n"), `Cannot read ${FILE}: not valid JSON: the file is empty`);
  assert.equal(problem('{"v1":\n}'), `Cannot read ${FILE}: not valid JSON: Unexpected token '}'`);
});

test("parseStatusJson() reports a null v1 (cloud-init fails on it) but defaults an absent one to {}", () => {
  assert.match(parseStatusJson('{"v1": null}', FILE).problems[0] ?? "", /v1 must be an object, got null/);
  assert.deepEqual(parseStatusJson('{"v2": 1}', FILE).problems, []);
});

test("parseStatusJson() renders a truthy non-string stage as Python's str() and ignores falsy ones", () => {
  assert.equal(parseStatusJson('{"v1": {"stage": ["init", 2.0]}}', FILE).stage, "['init', 2.0]");
  assert.equal(parseStatusJson('{"v1": {"stage": 1e16}}', FILE).stage, "1e+16");
  assert.equal(parseStatusJson('{"v1": {"stage": true}}', FILE).stage, "True");
  for (const falsy of ['""', "0", "0.0", "[]", "{}", "false", "null"]) {
    assert.equal(parseStatusJson(`{"v1": {"stage": ${falsy}}}`, FILE).stage, undefined, falsy);
  }
});

test("parseStatusJson() keeps a datasource that is false to Python as it is (get_datasource accepts it)", () => {
  for (const falsy of ["null", '""', "0", "false", "[]", "{}"]) {
    const v1 = parseStatusJson(`{"v1": {"datasource": ${falsy}}}`, FILE);
    assert.deepEqual(v1.problems, [], falsy);
    assert.deepEqual(v1.datasource, JSON.parse(falsy), falsy);
  }
});
