import assert from "node:assert/strict";
import { test } from "node:test";
import { computeBootStatus } from "./boot-status.js";
import type { BootState } from "./state-files.js";
import { emptyStatusV1, parseStatusJson } from "./status-file.js";

const deps = {
  systemctl: async () => ({ ok: true, stdout: "", stderr: "" }),
  query: { retry: false, deadline: undefined, now: () => 0, sleep: async () => {} },
};

/** A sysvinit host (no systemctl involved) with the given status.json text, or none. */
function state(options: { statusJson?: string; result?: boolean; markerFile?: boolean }): BootState {
  const { statusJson } = options;
  return {
    isSystemd: options.markerFile === true,
    cmdline: "",
    kernelCmdlineEnv: "",
    markerFile: options.markerFile === true,
    runDir: "/run/cloud-init",
    generatorDisabled: false,
    generatorEnabled: false,
    statusFileExists: statusJson !== undefined,
    statusV1: statusJson === undefined ? emptyStatusV1() : parseStatusJson(statusJson, "status.json"),
    resultExists: options.result === true,
    warnings: [],
  };
}

const errors = '{"v1": {"init": {"start": 1, "finished": 2, "errors": ["boom"]}}}';
const recoverable = '{"v1": {"init": {"start": 1, "finished": 2, "recoverable_errors": {"WARNING": ["w"]}}}}';
const degradedNotStarted = '{"v1": {"init": {"recoverable_errors": {"WARNING": ["w"]}}}}';

// status.py translate_status: (running, condition) → (status, extended_status), computed once for every format.
const cases: [string, BootState, string, string][] = [
  ["error while running", state({ statusJson: errors }), "error", "error - running"],
  ["error once done", state({ statusJson: errors, result: true }), "error", "error - done"],
  ["degraded while running", state({ statusJson: recoverable }), "running", "degraded running"],
  ["degraded once done", state({ statusJson: recoverable, result: true }), "done", "degraded done"],
  [
    "degraded, not started",
    state({ statusJson: degradedNotStarted, result: true }),
    "not started",
    "not started",
  ],
  ["healthy, not started", state({}), "not started", "not started"],
  ["disabled by the marker file", state({ markerFile: true }), "disabled", "disabled"],
];

for (const [name, input, status, extended] of cases) {
  test(`computeBootStatus() shows ${name} as "${status}" / "${extended}"`, async () => {
    const computed = await computeBootStatus(input, deps);
    assert.equal(computed.status, status);
    assert.equal(computed.extendedStatus, extended);
  });
}

test("computeBootStatus() keeps which stage each error came from, and our own problems apart", async () => {
  const text =
    '{"v1": {"init": {"start": 1, "finished": 2, "errors": ["b"]}, "init-local": {"errors": ["a1", "a2"]},' +
    ' "modules-final": {"errors": "not a list"}}}';
  const computed = await computeBootStatus(state({ statusJson: text, result: true }), deps);
  assert.deepEqual(computed.stageErrors, [
    { stage: "init", messages: ["b"] },
    { stage: "init-local", messages: ["a1", "a2"] },
  ]);
  assert.deepEqual(computed.problems, [
    'Cannot read status.json: v1.modules-final.errors must be an array of strings, got string "not a list"',
  ]);
  assert.deepEqual(computed.errors, ["b", "a1", "a2", ...computed.problems]);
  assert.equal(computed.failedUnit, undefined);
});
