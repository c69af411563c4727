import assert from "node:assert/strict";
import { test } from "node:test";
import type { BootStatus } from "./boot-status.js";
import type { SummaryOptions } from "./summary.js";
import { formatSummary } from "./summary.js";

function status(fields: Partial<BootStatus>): BootStatus {
  return {
    running: "done",
    condition: "healthy",
    status: "done",
    extendedStatus: "done",
    bootStatusCode: "enabled-by-generator",
    detail: "DataSourceNoCloud",
    errors: [],
    stageErrors: [],
    problems: [],
    failedUnit: undefined,
    recoverableErrors: [],
    latestEvent: 1,
    lastUpdate: "",
    datasource: "nocloud",
    v1: {},
    warnings: [],
    ...fields,
  };
}

const verdict: SummaryOptions = {
  outcome: { kind: "verdict" },
  exitCode: 0,
  allowDegraded: false,
  root: "/",
  runDir: "/run/cloud-init",
};

test("formatSummary() says nothing about a healthy or disabled boot", () => {
  assert.equal(formatSummary(status({}), verdict), undefined);
  assert.equal(formatSummary(status({ running: "disabled", status: "disabled" }), verdict), undefined);
});

test("formatSummary() without --root names the system's own status.json and logs", () => {
  const text = formatSummary(
    status({
      condition: "error",
      status: "error",
      extendedStatus: "error - done",
      errors: ["boom"],
      stageErrors: [{ stage: "init", messages: ["boom"] }],
    }),
    { ...verdict, exitCode: 1 },
  );
  assert.equal(
    text,
    "bootstatus: cloud-init reports errors (extended_status: error - done), exit 1\n" +
      "failing stages (/run/cloud-init/status.json):\n  init:\n    - boom\n" +
      "logs to read next:\n  /var/log/cloud-init.log\n  /var/log/cloud-init-output.log\n",
  );
});

test("formatSummary() indents the later lines of a multi-line error under its first", () => {
  const text = formatSummary(
    status({
      condition: "error",
      extendedStatus: "error - done",
      stageErrors: [{ stage: "modules-final", messages: ["Traceback:\n  File x\nValueError\n"] }],
    }),
    { ...verdict, exitCode: 1, runDir: "/srv/run" },
  );
  assert.match(
    text ?? "",
    /^failing stages \(\/srv\/run\/status\.json\):\n {2}modules-final:\n {4}- Traceback:\n {6} {2}File x\n {6}ValueError\n/m,
  );
});

test("formatSummary() counts every recoverable level and shows at most five messages of each", () => {
  const many = Array.from({ length: 8 }, (_, i) => `warning ${i + 1}`);
  const text = formatSummary(
    status({
      condition: "degraded",
      extendedStatus: "degraded done",
      recoverableErrors: [
        { level: "WARNING", messages: many },
        { level: "DEPRECATED", messages: ["old\nkey"] },
      ],
    }),
    { ...verdict, exitCode: 0, allowDegraded: true },
  );
  assert.equal(
    text,
    "bootstatus: cloud-init reports recoverable errors only (extended_status: degraded done), exit 0 (degraded allowed)\n" +
      "recoverable errors: WARNING 8, DEPRECATED 1\n" +
      "  WARNING (8):\n" +
      "    - warning 1\n    - warning 2\n    - warning 3\n    - warning 4\n    - warning 5\n" +
      "    - ... and 3 more (bootstatus --long lists them all)\n" +
      "  DEPRECATED (1):\n    - old key\n" +
      "logs to read next:\n  /var/log/cloud-init.log\n  /var/log/cloud-init-output.log\n",
  );
});

test("formatSummary() names a disabled cloud-init unit as not enabled", () => {
  const text = formatSummary(
    status({
      condition: "error",
      extendedStatus: "error - done",
      failedUnit: {
        name: "cloud-init-local.service",
        activeState: "inactive",
        subState: "dead",
        unitFileState: "masked",
        reason: "disabled",
      },
    }),
    { ...verdict, exitCode: 1 },
  );
  assert.match(
    text ?? "",
    /^systemd unit: cloud-init-local\.service is not enabled \(ActiveState=inactive, SubState=dead, UnitFileState=masked\)$/m,
  );
});

test("formatSummary() explains an expired --timeout even when nothing is wrong yet", () => {
  const text = formatSummary(
    status({
      running: "not started",
      status: "not started",
      extendedStatus: "not started",
      detail: "Systemd generator may not have run yet.",
    }),
    {
      ...verdict,
      exitCode: 3,
      root: "/mnt/image",
      outcome: { kind: "timeout", seconds: 30, waitingOn: "boot" },
    },
  );
  assert.equal(
    text,
    "bootstatus: gave up after --timeout 30: cloud-init is still not started " +
      "(extended_status: not started, detail: Systemd generator may not have run yet.), exit 3\n" +
      "logs to read next:\n  /mnt/image/var/log/cloud-init.log\n  /mnt/image/var/log/cloud-init-output.log\n",
  );
});
