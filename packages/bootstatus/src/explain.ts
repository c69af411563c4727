import type { LogFindings } from "./cloud-init-log.js";
import { failedModules, hasBootStart, parseCloudInitLog } from "./cloud-init-log.js";
import { LOG_TAIL_LIMIT, readLogTail } from "./log-tail.js";
import { rootedPath } from "./rooted-path.js";

/** cloud-init's logs (05_logging.cfg `def_log_file`, `output: {all: '| tee -a ...'}`). */
export const CLOUD_INIT_LOG = "/var/log/cloud-init.log";
export const CLOUD_INIT_OUTPUT_LOG = "/var/log/cloud-init-output.log";
/** How many lines of cloud-init-output.log `--explain` shows. */
export const OUTPUT_TAIL_LINES = 20;
// 20 lines of a chatty apt run fit easily; a longer line is cut at what was read.
const OUTPUT_TAIL_BYTES = 64 * 1024;

/** Report v1's optional `diagnostics` object (`--explain`). */
export interface Diagnostics extends LogFindings {
  /** The last lines of cloud-init-output.log. */
  output_tail: string[];
  /** What could not be read, or was read only in part (missing, rotated, cut, not a regular file). */
  problems: string[];
}

function logText(root: string, problems: string[]): string {
  const read = readLogTail(rootedPath(root, CLOUD_INIT_LOG));
  let text = "";
  if (read.kind === "ok") {
    text = read.text;
    if (read.truncated) problems.push(`${CLOUD_INIT_LOG}: only its last ${LOG_TAIL_LIMIT} bytes were read`);
  } else {
    problems.push(`${CLOUD_INIT_LOG}: ${read.kind === "missing" ? "not found" : read.reason}`);
  }
  if (hasBootStart(text)) return text;
  // logrotate (Debian's /etc/logrotate.d/cloud-init) may have moved the boot's start to cloud-init.log.1.
  const rotated = readLogTail(rootedPath(root, `${CLOUD_INIT_LOG}.1`));
  if (rotated.kind !== "ok") return text;
  problems.push(`${CLOUD_INIT_LOG}: the boot starts in ${CLOUD_INIT_LOG}.1 (rotated), read too`);
  return `${rotated.text}${rotated.text.endsWith("\n") || rotated.text === "" ? "" : "\n"}${text}`;
}

function outputTail(root: string, problems: string[]): string[] {
  const read = readLogTail(rootedPath(root, CLOUD_INIT_OUTPUT_LOG), OUTPUT_TAIL_BYTES);
  if (read.kind !== "ok") {
    problems.push(`${CLOUD_INIT_OUTPUT_LOG}: ${read.kind === "missing" ? "not found" : read.reason}`);
    return [];
  }
  const lines = read.text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines.slice(-OUTPUT_TAIL_LINES);
}

/** The most WARNING lines and tracebacks kept (the latest): a report stays small enough to post. */
export const MAX_LISTED = 200;

function latest<T>(items: T[], what: string, problems: string[]): T[] {
  if (items.length <= MAX_LISTED) return items;
  problems.push(
    `${CLOUD_INIT_LOG}: ${items.length - MAX_LISTED} earlier ${what} left out (the last ${MAX_LISTED} kept)`,
  );
  return items.slice(-MAX_LISTED);
}

/** Reads cloud-init's logs under `root` into the diagnostics of `--explain`; never throws. */
export function explainBoot(root: string): Diagnostics {
  const problems: string[] = [];
  let findings: LogFindings = { stages: [], tracebacks: [], warnings: [] };
  try {
    findings = parseCloudInitLog(logText(root, problems));
  } catch (error) {
    problems.push(`${CLOUD_INIT_LOG}: cannot be read: ${(error as Error).message}`);
  }
  return {
    stages: findings.stages,
    tracebacks: latest(findings.tracebacks, "tracebacks", problems),
    warnings: latest(findings.warnings, "WARNING lines", problems),
    output_tail: outputTail(root, problems),
    problems,
  };
}

/** The `--strict` errors: one per module the log records as failed (stage/module), each named once. */
export function strictErrors(diagnostics: Diagnostics): string[] {
  return [...new Set(failedModules(diagnostics))].map(
    (name) =>
      `${CLOUD_INIT_LOG}: module ${name.split("/")[1]} failed in stage ${name.split("/")[0]} (--strict)`,
  );
}

const duration = (s: number | null): string => (s === null ? "" : ` in ${s} s`);

/** The `--explain` section printed after the tabular output. */
export function formatExplain(d: Diagnostics): string {
  const lines = [`explain (${CLOUD_INIT_LOG}, last boot):`];
  lines.push(d.stages.length === 0 ? "stages: none logged" : "stages:");
  for (const s of d.stages) {
    lines.push(`  ${s.stage}: ${s.outcome}${duration(s.duration_seconds)}`);
    // Every module is in the JSON; the text names those that did not succeed.
    for (const m of s.modules) {
      if (m.outcome !== "SUCCESS") lines.push(`    ${m.module}: ${m.outcome}${duration(m.duration_seconds)}`);
    }
  }
  if (d.tracebacks.length > 0) {
    lines.push("tracebacks:");
    for (const t of d.tracebacks) lines.push(`  ${t.stage ?? "?"}/${t.module ?? "?"}: ${t.exception}`);
  }
  if (d.warnings.length > 0) {
    lines.push("warnings:");
    for (const w of d.warnings) lines.push(`  - ${w}`);
  }
  if (d.output_tail.length > 0) {
    lines.push(`${CLOUD_INIT_OUTPUT_LOG} (last ${OUTPUT_TAIL_LINES} lines):`);
    for (const l of d.output_tail) lines.push(`  | ${l}`);
  }
  for (const p of d.problems) lines.push(`note: ${p}`);
  return `${lines.join("\n")}\n`;
}
