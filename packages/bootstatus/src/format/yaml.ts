import type { ReportV1 } from "../report.js";

/** Report v1 as YAML, keys in the report's order, 2-space indent, no line folding (the `yaml` library, loaded on use). */
export async function formatYaml(report: ReportV1): Promise<string> {
  const { stringify } = await import("yaml");
  return stringify(report, { indent: 2, lineWidth: 0 });
}
