import type { ReportV1 } from "../report.js";

/** Report v1 as JSON: keys in the report's order, 2-space indent, a final newline. */
export function formatJson(report: ReportV1): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
