import { InputError } from "./errors.js";
import { comparePythonStrings } from "./python/repr.js";
import type { ReportV1 } from "./report.js";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// Spellings of older cloud-init releases and their current names: 24.2 renamed `*-kernel-cmdline` to
// `*-kernel-command-line` (status.py EnabledStatus, canonical/cloud-init fa1b8688e), 24.1 `not run` to `not started`
// (status.py RunningStatus, d175170ae).
const OLD_CODES: Record<string, string> = {
  "enabled-by-kernel-cmdline": "enabled-by-kernel-command-line",
  "disabled-by-kernel-cmdline": "disabled-by-kernel-command-line",
};
const OLD_STATUS: Record<string, string> = { "not run": "not started" };

// Top-level keys of cloud-init's JSON that are not stages (the rest that hold objects are v1 stage copies).
const NOT_STAGES = new Set(["recoverable_errors", "schemas"]);

function text(doc: Record<string, unknown>, key: string): string {
  const value = doc[key];
  if (typeof value !== "string")
    throw new InputError(`Cannot convert: "${key}" must be a string, got ${JSON.stringify(value)}`);
  return value;
}

function normalizeStatus(value: string): string {
  return OLD_STATUS[value] ?? value;
}

/**
 * 22.4–23.3 print no extended_status; derive it from status and the stage key: an error while a stage is
 * still named is `error - running`, otherwise `error - done` (23.3 had no condition/running split).
 */
function extendedStatus(doc: Record<string, unknown>, status: string): string {
  const given = doc.extended_status;
  if (typeof given === "string" && given !== "error") {
    return given.replace(/^degraded not run$/, "not started").replace(/not run$/, "not started");
  }
  if (status === "error") return doc.stage ? "error - running" : "error - done";
  return status;
}

/** Level order as cloud-init computed it: first seen walking stage objects in key order (status.py get_errors). */
function recoverable(doc: Record<string, unknown>): ReportV1["recoverable_errors"] {
  const merged = doc.recoverable_errors;
  if (merged === undefined) return [];
  if (!isRecord(merged))
    throw new InputError('Cannot convert: "recoverable_errors" must be an object of level to messages');
  const order: string[] = [];
  const stageKeys = Object.keys(doc)
    .filter((k) => !NOT_STAGES.has(k) && isRecord(doc[k]))
    // sorted() compares code points; `<` compares UTF-16 units, which puts U+10000 and up before U+E000-U+FFFF.
    .sort(comparePythonStrings);
  for (const key of stageKeys) {
    const stage = doc[key] as Record<string, unknown>;
    if (!isRecord(stage.recoverable_errors)) continue;
    for (const level of Object.keys(stage.recoverable_errors)) if (!order.includes(level)) order.push(level);
  }
  for (const level of Object.keys(merged)) if (!order.includes(level)) order.push(level);
  return order
    .filter((level) => Object.hasOwn(merged, level))
    .map((level) => {
      const messages = merged[level];
      if (!Array.isArray(messages) || !messages.every((m) => typeof m === "string")) {
        throw new InputError(`Cannot convert: "recoverable_errors.${level}" must be an array of strings`);
      }
      return { level, messages };
    });
}

/**
 * Converts the output of `cloud-init status --format json` of any version from 22.4 to 26.x (including
 * Ubuntu's variant with `schemas` and `_schema_version`) into report v1, normalising old spellings.
 */
export function convertCloudInitJson(doc: unknown): ReportV1 {
  if (!isRecord(doc))
    throw new InputError("Cannot convert: expected the JSON object of `cloud-init status --format json`");
  const status = normalizeStatus(text(doc, "status"));
  const code = text(doc, "boot_status_code");
  const lastUpdate = doc.last_update;
  const detail = doc.detail;
  const errors = doc.errors ?? [];
  if (!Array.isArray(errors) || !errors.every((e) => typeof e === "string")) {
    throw new InputError('Cannot convert: "errors" must be an array of strings');
  }
  return {
    status: {
      status,
      extended_status: extendedStatus(doc, status),
      boot_status_code: OLD_CODES[code] ?? code,
      last_update: typeof lastUpdate === "string" && lastUpdate !== "" ? lastUpdate : null,
      detail: typeof detail === "string" && detail !== "" ? detail : null,
    },
    errors: errors.map((message: string) => ({ message })),
    recoverable_errors: recoverable(doc),
  };
}
