/** Result of one `systemctl` run. */
export interface SystemctlResult {
  ok: boolean;
  stdout: string;
  stderr: string;
  /** systemctl could not be started at all (not on PATH): retrying cannot help. */
  missing?: boolean;
}

/** Runs `systemctl <args>` (found on PATH); injected so tests and the wait loop control it. */
export type RunSystemctl = (args: readonly string[]) => Promise<SystemctlResult>;

/** Runs the `systemctl` found on PATH, without a shell. */
export function runSystemctl(env: NodeJS.ProcessEnv): RunSystemctl {
  return async (args) => {
    // Loaded on first use: most runs (sysvinit, cloud-init=enabled, marker file) never spawn systemctl.
    const { execFile } = await import("node:child_process");
    return new Promise((resolve) => {
      execFile(
        "systemctl",
        [...args],
        { env, encoding: "utf8", timeout: 30_000 },
        (error, stdout, stderr) => {
          const missing = (error as NodeJS.ErrnoException | null)?.code === "ENOENT";
          // subp raises ProcessExecutionError with stderr "-" when the command cannot be started.
          resolve({ ok: error === null, stdout, stderr: missing ? "-" : stderr, missing });
        },
      );
    });
  };
}

/** How to retry systemctl while waiting: cloud-init retries every 0.25 s (dbus not ready), we stop at a deadline. */
export interface QueryOptions {
  retry: boolean;
  /** Absolute time in ms after which retries stop; undefined retries forever, as cloud-init does. */
  deadline: number | undefined;
  now(): number;
  sleep(ms: number): Promise<void>;
  /** Called when retries stop because of the deadline, so the caller can exit 3 like any expired wait. */
  onDeadline?(): void;
}

/** cloudinit/cmd/status.py query_systemctl: the result with stdout stripped, or the failed run's result. */
export async function querySystemctl(
  run: RunSystemctl,
  args: readonly string[],
  options: QueryOptions,
): Promise<SystemctlResult> {
  for (;;) {
    const result = await run(args);
    if (result.ok) return { ...result, stdout: result.stdout.trim() };
    if (!options.retry || result.missing === true) return result;
    if (options.deadline !== undefined && options.now() + 250 >= options.deadline) {
      options.onDeadline?.();
      return result;
    }
    await options.sleep(250);
  }
}

// cloudinit/cmd/status.py systemd_failed (24.3+ unit list, single-process mode adds cloud-init-main).
const UNITS = [
  "cloud-final.service",
  "cloud-config.service",
  "cloud-init-network.service",
  "cloud-init-local.service",
  "cloud-init-main.service",
];

function parseProperties(text: string): Map<string, string> {
  const props = new Map<string, string>();
  for (const line of text.split("\n")) {
    const eq = line.indexOf("=");
    if (eq !== -1) props.set(line.slice(0, eq).trim(), line.slice(eq + 1).trim());
  }
  return props;
}

/** cloudinit/subp.py ProcessExecutionError._indent_text: trailing newlines dropped, later lines indented by 8. */
function indentText(text: string): string {
  return text.replace(/\n+$/, "").replaceAll("\n", `\n${" ".repeat(8)}`);
}

/** The cloud-init unit whose state made systemdFailed() answer true, with the properties that decided it. */
export interface FailedUnit {
  name: string;
  activeState: string;
  subState: string;
  unitFileState: string;
  /** `disabled`: its UnitFileState is neither enabled* nor static; `failed`: ActiveState or SubState is failed. */
  reason: "disabled" | "failed";
}

/** What systemd says about cloud-init's units: failed or not, and a warning for stderr when it could not tell. */
export interface UnitVerdict {
  failed: boolean;
  warning: string | undefined;
  /** The unit that decided a failure (the first in cloud-init's order); absent when nothing failed. */
  unit?: FailedUnit;
}

/** True when a cloud-init unit is disabled or failed (cloudinit/cmd/status.py systemd_failed). */
export async function systemdFailed(run: RunSystemctl, options: QueryOptions): Promise<UnitVerdict> {
  for (const unit of UNITS) {
    const result = await querySystemctl(
      run,
      ["show", "--property=ActiveState,UnitFileState,SubState,MainPID", unit],
      options,
    );
    if (!result.ok) {
      return {
        failed: false,
        warning: `Failed to get status from systemd. Cloud-init status may be inaccurate. Error from systemctl: ${indentText(result.stderr)}`,
      };
    }
    const states = parseProperties(result.stdout);
    const unitFileState = states.get("UnitFileState") ?? "";
    const active = states.get("ActiveState") ?? "";
    const sub = states.get("SubState") ?? "";
    // Kept for the stderr summary (summary.ts): which unit is the cause, not only that one is.
    const failedUnit = (reason: FailedUnit["reason"]): UnitVerdict => ({
      failed: true,
      warning: undefined,
      unit: { name: unit, activeState: active, subState: sub, unitFileState, reason },
    });
    // Individual services should not get disabled.
    if (!(unitFileState.startsWith("enabled") || unitFileState === "static")) return failedUnit("disabled");
    if (active === "active") {
      if (sub === "exited") continue;
      // Still "running" only because of a leftover process in the cgroup: the unit's main process has exited.
      if (sub === "running" && states.get("MainPID") === "0") return { failed: false, warning: undefined };
    } else if (active === "failed" || sub === "failed") {
      return failedUnit("failed");
    }
    // Enabled, neither exited normally nor failed: still running.
    return { failed: false, warning: undefined };
  }
  return { failed: false, warning: undefined };
}
