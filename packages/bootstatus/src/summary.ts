import path from "node:path";
import type { BootStatus } from "./boot-status.js";

// The stderr summary (README "Why, on stderr"): when `status --wait` fails in a pipeline, the job log shows `status:
// error` and nothing else (canonical/cloud-init#5340, bpg/terraform-provider-proxmox#2171), so people add a step to
// dump the logs. This says why, after the normal output, on stderr only: stdout stays cloud-init's, byte for byte.

/** How the status command ended: cloud-init's verdict, or a `--timeout` that ran out first. */
export type Outcome =
  | { kind: "verdict" }
  /**
   * `waitingOn`: `boot` while cloud-init was not started/running, `systemctl` while its retries went on, `reboot`
   * while the reboot the boot asked for (or the next boot's result) had not come.
   */
  | { kind: "timeout"; seconds: number; waitingOn: "boot" | "systemctl" | "reboot" };

/** What the summary needs besides the status. */
export interface SummaryOptions {
  outcome: Outcome;
  exitCode: number;
  /** `--allow-degraded` (or BOOTSTATUS_ALLOW_DEGRADED) was in effect. */
  allowDegraded: boolean;
  /** The inspected system's root (`--root`, BOOTSTATUS_ROOT, or `/`): the log paths are shown under it. */
  root: string;
  /** cloud-init's run_dir on the inspected system, to name the status.json the stage errors come from (under root). */
  runDir: string;
}

// cloud-init's default log files: cloudinit/settings.py CFG_BUILTIN `def_log_file`, and the `output` default of
// config/cloud.cfg.d/05_logging.cfg (`| tee -a /var/log/cloud-init-output.log`).
const LOG_FILES = ["/var/log/cloud-init.log", "/var/log/cloud-init-output.log"];

/** Recoverable messages shown per level; warnings can run to dozens, and `--long` lists them all. */
const SHOWN_PER_LEVEL = 5;

/** A message as a list item: its later lines indented under the first, so the summary's structure survives. */
function item(indent: string, message: string): string {
  return `${indent}- ${message.replace(/\n+$/, "").replaceAll("\n", `\n${indent}  `)}`;
}

function headline(status: BootStatus, options: SummaryOptions): string {
  const { outcome, exitCode } = options;
  if (outcome.kind === "timeout") {
    const waited = `gave up after --timeout ${outcome.seconds}`;
    if (outcome.waitingOn === "systemctl") {
      return `${waited}: systemctl did not answer in time (extended_status: ${status.extendedStatus}), exit ${exitCode}`;
    }
    if (outcome.waitingOn === "reboot") {
      return (
        `${waited}: the boot asked for a reboot, and the next boot's result did not come in time ` +
        `(extended_status: ${status.extendedStatus}), exit ${exitCode}`
      );
    }
    return (
      `${waited}: cloud-init is still ${status.running} ` +
      `(extended_status: ${status.extendedStatus}, detail: ${status.detail}), exit ${exitCode}`
    );
  }
  if (status.condition === "error") {
    return `cloud-init reports errors (extended_status: ${status.extendedStatus}), exit ${exitCode}`;
  }
  const allowed = options.allowDegraded ? " (degraded allowed)" : "";
  return `cloud-init reports recoverable errors only (extended_status: ${status.extendedStatus}), exit ${exitCode}${allowed}`;
}

function unitLines(status: BootStatus): string[] {
  const unit = status.failedUnit;
  if (unit === undefined) return [];
  const states = `ActiveState=${unit.activeState}, SubState=${unit.subState}, UnitFileState=${unit.unitFileState}`;
  const what = unit.reason === "disabled" ? "is not enabled" : "failed";
  return [
    `systemd unit: ${unit.name} ${what} (${states})`,
    `  read next: systemctl status ${unit.name}; journalctl -u ${unit.name}`,
  ];
}

function recoverableLines(status: BootStatus): string[] {
  const levels = status.recoverableErrors;
  if (levels.length === 0) return [];
  const counts = levels.map((l) => `${l.level} ${l.messages.length}`).join(", ");
  const lines = [`recoverable errors: ${counts}`];
  for (const { level, messages } of levels) {
    lines.push(`  ${level} (${messages.length}):`);
    // `--long` prints recoverable messages on one line each (status.py print_status replaces "\n" by " ").
    for (const message of messages.slice(0, SHOWN_PER_LEVEL))
      lines.push(item("    ", message.replaceAll("\n", " ")));
    const more = messages.length - SHOWN_PER_LEVEL;
    if (more > 0) lines.push(`    - ... and ${more} more (bootstatus --long lists them all)`);
  }
  return lines;
}

/**
 * The summary printed on stderr after the normal output when the result is not healthy: error, degraded, or an
 * expired `--timeout`. Undefined when there is nothing to explain (a healthy, finished or disabled boot).
 */
export function formatSummary(status: BootStatus, options: SummaryOptions): string | undefined {
  if (options.outcome.kind === "verdict" && status.condition === "healthy") return undefined;
  const lines = [`bootstatus: ${headline(status, options)}`];
  if (status.stageErrors.length > 0) {
    lines.push(`failing stages (${path.join(options.root, options.runDir, "status.json")}):`);
    for (const { stage, messages } of status.stageErrors) {
      lines.push(`  ${stage}:`);
      // One push per message: spreading a stage's 125,000 errors into push() would overflow the stack.
      for (const m of messages) lines.push(item("    ", m));
    }
  }
  if (status.problems.length > 0) {
    lines.push("other errors:");
    for (const p of status.problems) lines.push(item("  ", p));
  }
  lines.push(...unitLines(status), ...recoverableLines(status));
  lines.push("logs to read next:", ...LOG_FILES.map((f) => `  ${path.join(options.root, f)}`));
  return `${lines.join("\n")}\n`;
}
