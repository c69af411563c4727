import type { BootStatus } from "./boot-status.js";
import type { Diagnostics } from "./explain.js";

/** The boot status report, version 1 (spec part C): keys in this order. */
export interface ReportV1 {
  status: {
    status: string;
    extended_status: string;
    boot_status_code: string;
    last_update: string | null;
    detail: string | null;
  };
  errors: { message: string }[];
  recoverable_errors: { level: string; messages: string[] }[];
  /** Ours, optional (`--explain`): what cloud-init's logs say about the last boot. */
  diagnostics?: Diagnostics;
}

/**
 * Builds report v1 from the computed status. It always carries the computed values, even when status.json's
 * v1 has keys of the same names: the report is the spec's table of computed fields (spec part C), while
 * cloud-init's own output lets those keys override (status.py print_status merges `**status_v1` last).
 */
export function toReport(status: BootStatus, diagnostics?: Diagnostics): ReportV1 {
  const report: ReportV1 = {
    status: {
      status: status.status,
      extended_status: status.extendedStatus,
      boot_status_code: status.bootStatusCode,
      last_update: status.lastUpdate === "" ? null : status.lastUpdate,
      detail: status.detail === "" ? null : status.detail,
    },
    errors: status.errors.map((message) => ({ message })),
    recoverable_errors: status.recoverableErrors.map(({ level, messages }) => ({
      level,
      messages: [...messages],
    })),
  };
  if (diagnostics !== undefined) report.diagnostics = diagnostics;
  return report;
}
