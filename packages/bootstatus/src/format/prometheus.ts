import type { ReportV1 } from "../report.js";

function label(value: string): string {
  // Text exposition format: escape backslash, double quote and line feed in label values.
  return value.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");
}

/**
 * The report as Prometheus text exposition (version 0.0.4), ready for a Pushgateway: an info metric with the
 * status strings as labels, error counts, recoverable error counts by level and the last update as a Unix time.
 */
export function formatPrometheus(report: ReportV1, options: { latestEvent: number }): string {
  const s = report.status;
  const lines = [
    "# HELP bootstatus_info Boot status of cloud-init (boot status report v1); the value is always 1.",
    "# TYPE bootstatus_info gauge",
    `bootstatus_info{status="${label(s.status)}",extended_status="${label(s.extended_status)}",` +
      `boot_status_code="${label(s.boot_status_code)}"} 1`,
    "# HELP bootstatus_errors Number of errors cloud-init recorded.",
    "# TYPE bootstatus_errors gauge",
    `bootstatus_errors ${report.errors.length}`,
    "# HELP bootstatus_recoverable_errors Number of recoverable errors cloud-init recorded, by log level.",
    "# TYPE bootstatus_recoverable_errors gauge",
    ...report.recoverable_errors.map(
      (r) => `bootstatus_recoverable_errors{level="${label(r.level)}"} ${r.messages.length}`,
    ),
  ];
  if (options.latestEvent > 0) {
    lines.push(
      "# HELP bootstatus_last_update_timestamp_seconds Time of the latest stage event, as a Unix time.",
      "# TYPE bootstatus_last_update_timestamp_seconds gauge",
      `bootstatus_last_update_timestamp_seconds ${options.latestEvent}`,
    );
  }
  return `${lines.join("\n")}\n`;
}
