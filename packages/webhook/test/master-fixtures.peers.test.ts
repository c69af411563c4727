// Ours against upstream master's recorded answers (test/fixtures/master/answers.json, written by
// scripts/record-master-fixtures.mjs from a build of master), byte for byte: answers, the log lines that say where
// it serves, who asked and what failed, and the exit code (issue 34 items 1 and 2). Here: the socket-activation scenarios, started by Debian's systemd-socket-activate (package systemd); the others run in npm test (test/master-fixtures.test.ts).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { OUR_WEBHOOK } from "./support/binaries.js";
import { type Recorded, runScenario, SCENARIOS } from "./support/master-scenarios.js";

const fixture = JSON.parse(
  readFileSync(new URL("../../test/fixtures/master/answers.json", import.meta.url), "utf8"),
) as { recordedWith: string; scenarios: Record<string, Recorded> };

for (const scenario of SCENARIOS.filter((scenario) => scenario.activate !== undefined)) {
  test(`${scenario.name}: as upstream master (${fixture.recordedWith})`, async () => {
    const expected = fixture.scenarios[scenario.name];
    assert.ok(
      expected !== undefined,
      `no recorded answers for ${scenario.name}: re-run the recording script`,
    );
    assert.deepEqual(await runScenario(scenario, [process.execPath, OUR_WEBHOOK]), expected);
  });
}
