import type { BootStatusCode } from "./boot-code.js";
import { bootCode, isDisabledCode } from "./boot-code.js";
import { formatLastUpdate } from "./last-update.js";
import { comparePythonStrings, pythonNumber } from "./python/repr.js";
import type { BootState } from "./state-files.js";
import type { StatusV1 } from "./status-file.js";
import type { FailedUnit, QueryOptions, RunSystemctl } from "./systemd.js";
import { systemdFailed } from "./systemd.js";

/** cloud-init's RunningStatus values. */
export type RunningStatus = "not started" | "running" | "done" | "disabled";
/** cloud-init's ConditionStatus values (`healthy` is upstream's internal PEACHY). */
export type Condition = "error" | "degraded" | "healthy";

/** One recoverable level and its messages, levels in first-seen order. */
export interface RecoverableLevel {
  level: string;
  messages: string[];
}

/** The errors of one status.json stage, as `--long` lists them. */
export interface StageErrors {
  stage: string;
  messages: string[];
}

/** The computed status: what `cloud-init status` derives from the state (status.py StatusDetails). */
export interface BootStatus {
  running: RunningStatus;
  condition: Condition;
  /** The `status` shown to users (status.py translate_status): `error` or the running status. */
  status: RunningStatus | "error";
  /** The `extended_status` shown to users (status.py translate_status): `degraded done`, `error - running`, ... */
  extendedStatus: string;
  bootStatusCode: BootStatusCode;
  detail: string;
  errors: string[];
  /** Where `errors` came from, for the stderr summary (summary.ts): the stages that have errors, in `errors` order. */
  stageErrors: StageErrors[];
  /** Errors of ours that no stage recorded (a malformed status.json, a time past year 9999), in `errors` order. */
  problems: string[];
  /** The cloud-init unit that turned `running` into `done`/error, when that happened. */
  failedUnit: FailedUnit | undefined;
  recoverableErrors: RecoverableLevel[];
  /** Latest stage start/finish in seconds, 0 when there is none. */
  latestEvent: number;
  /** cloud-init's `last_update`: "" when latestEvent is 0. */
  lastUpdate: string;
  /**
   * cloud-init's `datasource` key: the lowercased short name, "" when absent, and status.json's value as it is
   * when that is false to Python (`null`, `""`, `0`, `false`, `[]`, `{}`).
   */
  datasource: unknown;
  /** status.json's v1 (minus `datasource`), copied into cloud-init's own JSON. */
  v1: Record<string, unknown>;
  /** Messages for stderr (systemctl trouble), not part of the report. */
  warnings: string[];
}

// 10000-01-01T00:00:00Z: datetime.fromtimestamp() rounds to the microsecond and fails from year 10000 on; no
// double lies between the last microsecond of 9999 that rounds down and this one.
const FIRST_UNDATABLE = 253402300800;

const UNIT_FAILURE_DETAIL = "Failed due to systemd unit failure";
const UNIT_FAILURE_ERROR =
  "Failed due to systemd unit failure. Ensure all cloud-init services are enabled, and check 'systemctl' or " +
  "'journalctl' for more information.";

function latestEvent(v1: StatusV1): number {
  let latest = 0;
  for (const stage of v1.stages.values()) latest = Math.max(latest, stage.start ?? 0, stage.finished ?? 0);
  return latest;
}

/** Errors in stage-key order; recoverable levels merged in first-seen order (status.py get_errors). */
function collectErrors(v1: StatusV1): {
  errors: string[];
  stageErrors: StageErrors[];
  recoverable: RecoverableLevel[];
} {
  const stageErrors: StageErrors[] = [];
  const byLevel = new Map<string, string[]>();
  // status.py get_errors walks sorted(status_v1.items()): keys in Python's code point order.
  const keys = [...v1.stages.keys()].sort(comparePythonStrings);
  for (const key of keys) {
    const stage = v1.stages.get(key);
    if (stage === undefined) continue;
    if (stage.errors.length > 0) stageErrors.push({ stage: key, messages: stage.errors });
    for (const [level, messages] of stage.recoverableErrors) {
      const merged = byLevel.get(level);
      if (merged === undefined) byLevel.set(level, [...messages]);
      else for (const m of messages) merged.push(m);
    }
  }
  // The flat list is the stages' lists in order: derived here, so the two cannot disagree.
  const errors = stageErrors.flatMap((s) => s.messages);
  return { errors, stageErrors, recoverable: [...byLevel].map(([level, messages]) => ({ level, messages })) };
}

/** status.py get_datasource: "DataSourceNoCloud [seed=...]" → "nocloud"; a false value as it is; "" when absent. */
function datasourceName(ds: unknown): unknown {
  if (ds === undefined) return "";
  if (typeof ds !== "string" || ds === "") return ds;
  return (ds.split(" ")[0] ?? "").toLowerCase().replaceAll("datasource", "");
}

/** Effects the computation needs: systemctl and how to retry it. */
export interface StatusDeps {
  systemctl: RunSystemctl;
  query: QueryOptions;
}

/** Computes the boot status from the state, as current cloud-init's get_status_details does. */
export async function computeBootStatus(state: BootState, deps: StatusDeps): Promise<BootStatus> {
  const boot = await bootCode(state, deps);
  const v1 = state.statusV1;
  const latest = latestEvent(v1);
  const { errors, stageErrors, recoverable } = collectErrors(v1);
  // A malformed status.json is an error report, never a crash: its problems count as errors.
  const problems = [...v1.problems];
  const datable = latest < FIRST_UNDATABLE;
  if (!datable) {
    // Python's datetime stops at year 9999: cloud-init raises there, we report it.
    problems.push(
      `Cannot read ${state.runDir}/status.json: the latest stage time ${pythonNumber(latest)} is after year 9999`,
    );
  }
  for (const p of problems) errors.push(p);
  let condition: Condition = errors.length > 0 ? "error" : recoverable.length > 0 ? "degraded" : "healthy";
  let running: RunningStatus;
  if (isDisabledCode(boot.code)) running = "disabled";
  else if (state.statusFileExists && !state.resultExists) running = "running";
  else if (latest > 0) running = "done";
  else running = "not started";
  // status.py get_description: a truthy datasource (always a string, see status-file.ts), else the stage.
  let detail =
    typeof v1.datasource === "string" && v1.datasource !== ""
      ? v1.datasource
      : v1.stage !== undefined
        ? `Running in stage: ${v1.stage}`
        : boot.reason;
  const warnings: string[] = [...state.warnings];
  let failedUnit: FailedUnit | undefined;
  if (running === "running" && state.isSystemd) {
    const verdict = await systemdFailed(deps.systemctl, deps.query);
    if (verdict.warning !== undefined) warnings.push(verdict.warning);
    if (verdict.failed) {
      running = "done";
      condition = "error";
      detail = UNIT_FAILURE_DETAIL;
      errors.push(UNIT_FAILURE_ERROR);
      failedUnit = verdict.unit;
    }
  }
  const { datasource: _dropped, ...rest } = v1.raw;
  const shown = translateStatus(running, condition);
  return {
    running,
    condition,
    status: shown.status,
    extendedStatus: shown.extended,
    bootStatusCode: boot.code,
    detail,
    errors,
    stageErrors,
    problems,
    failedUnit,
    recoverableErrors: recoverable,
    latestEvent: latest,
    lastUpdate: latest > 0 && datable ? formatLastUpdate(latest) : "",
    datasource: datasourceName(v1.datasource),
    v1: rest,
    warnings,
  };
}

/** cloud-init's `recoverable_errors` dict (level → messages), as both of its own output formats print it. */
export function recoverableByLevel(levels: readonly RecoverableLevel[]): Record<string, string[]> {
  return Object.fromEntries(levels.map((r) => [r.level, r.messages]));
}

/** status.py translate_status: the (status, extended_status) pair shown to users. */
function translateStatus(
  running: RunningStatus,
  condition: Condition,
): { status: RunningStatus | "error"; extended: string } {
  if (condition === "error") return { status: "error", extended: `error - ${running}` };
  if (condition === "degraded" && (running === "done" || running === "running")) {
    return { status: running, extended: `degraded ${running}` };
  }
  return { status: running, extended: running };
}

/**
 * The status with errors of ours added (`--strict`: module failures only cloud-init.log records): condition error,
 * `status`/`extended_status` as translate_status shows an error; the messages also count as problems for the summary.
 */
export function withErrors(status: BootStatus, messages: readonly string[]): BootStatus {
  if (messages.length === 0) return status;
  const shown = translateStatus(status.running, "error");
  return {
    ...status,
    condition: "error",
    status: shown.status,
    extendedStatus: shown.extended,
    errors: [...status.errors, ...messages],
    problems: [...status.problems, ...messages],
  };
}
