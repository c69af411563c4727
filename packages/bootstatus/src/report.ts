import type { BootStatus } from "./boot-status.js";
import { translateStatus } from "./boot-status.js";

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
}

/**
 * Builds report v1 from the computed status. It always carries the computed values, even when status.json's
 * v1 has keys of the same names (issue 9; cloud-init's own JSON lets those override).
 */
export function toReport(status: BootStatus): ReportV1 {
  const { status: shown, extended } = translateStatus(status.running, status.condition);
  return {
    status: {
      status: shown,
      extended_status: extended,
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
}
