import assert from "node:assert/strict";
import { test } from "node:test";
import { parseStatusJson } from "./status-json.js";

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
];
for (const [text, message] of malformed) {
  test(`parseStatusJson() reports ${text} without throwing`, () => {
    const v1 = parseStatusJson(text, FILE);
    assert.equal(v1.problems.length, 1, v1.problems.join("; "));
    assert.match(v1.problems[0] ?? "", message);
  });
}
