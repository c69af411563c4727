import type { Condition } from "./boot-status.js";
import { ReportError, UsageError } from "./errors.js";

// Every exit code bootstatus returns, in one place (README "Exit codes").

/** Healthy (also `not started`, `running`, `disabled` without errors); a valid report; a finished command. */
export const EXIT_OK = 0;
/** cloud-init's condition `error`, an invalid report for `validate`, or any failure of ours (BootstatusError). */
export const EXIT_ERROR = 1;
/** cloud-init's condition `degraded`: recoverable errors only (cloudinit/cmd/status.py handle_status_args, 23.4+). */
export const EXIT_DEGRADED = 2;
/** A bad command line: argparse exits 2 after printing the usage (Python's argparse.ArgumentParser.error). */
export const EXIT_USAGE = 2;
/** Ours: `--timeout` ran out while cloud-init was still `not started` or `running` (cloud-init waits forever). */
export const EXIT_TIMEOUT = 3;
/** Ours: `report --to` could not deliver the report (retries ran out, or the receiver refused it). */
export const EXIT_REPORT_FAILED = 4;

/**
 * cloud-init's exit code for a condition (status.py handle_status_args): 1 on error, 2 when degraded, else 0.
 * `allowDegraded` (ours, `--allow-degraded`, opt-in for pipelines) turns only the 2 into 0.
 */
export function exitCodeFor(condition: Condition, options: { allowDegraded?: boolean } = {}): number {
  if (condition === "error") return EXIT_ERROR;
  if (condition === "degraded") return options.allowDegraded === true ? EXIT_OK : EXIT_DEGRADED;
  return EXIT_OK;
}

/** The exit code of a failure: a usage error as argparse, an undelivered report 4, every other failure 1. */
export function exitCodeForError(error: unknown): number {
  if (error instanceof ReportError) return EXIT_REPORT_FAILED;
  return error instanceof UsageError ? EXIT_USAGE : EXIT_ERROR;
}
