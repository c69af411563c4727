import type { BootStatus } from "./boot-status.js";
import { computeBootStatus, withErrors } from "./boot-status.js";
import { EXIT_TIMEOUT, exitCodeFor } from "./exit-code.js";
import type { Diagnostics } from "./explain.js";
import type { Flags } from "./flags.js";
import { parseEnvSwitch } from "./flags.js";
import { rebootProbe } from "./reboot.js";
import { readBootState } from "./state-files.js";
import type { Outcome } from "./summary.js";
import type { RunSystemctl } from "./systemd.js";
import { waitForBoot } from "./wait.js";

/** What checking the boot needs from outside (injected by cli.ts through main's Io). */
export interface CheckDeps {
  stderr: { write(chunk: string): unknown };
  env: Readonly<Record<string, string | undefined>>;
  now(): number;
  sleep(ms: number): Promise<void>;
  systemctl: RunSystemctl;
  /** Called before each re-read while waiting. */
  onPoll(): void;
}

/** The verdict on the boot: its status, how the wait ended, the exit code, and the diagnostics of `--explain`. */
export interface BootCheck {
  status: BootStatus;
  outcome: Outcome;
  exitCode: number;
  allowDegraded: boolean;
  root: string;
  runDir: string;
  diagnostics: Diagnostics | undefined;
}

/**
 * Reads the boot status under the root, waits if asked (across a reboot the boot asked for, unless
 * `--wait-for-reboot=no`), and with `--explain` reads cloud-init's logs (`--strict`: failed modules are errors).
 */
export async function checkBoot(flags: Flags, deps: CheckDeps): Promise<BootCheck> {
  const root = flags.root ?? (deps.env.BOOTSTATUS_ROOT || "/");
  // For pipelines that cannot change the command line (README "In pipelines"); a value we cannot read is refused
  // up front.
  const allowDegraded =
    flags.allowDegraded || parseEnvSwitch("BOOTSTATUS_ALLOW_DEGRADED", deps.env.BOOTSTATUS_ALLOW_DEGRADED);
  const deadline = flags.timeout === undefined ? undefined : deps.now() + flags.timeout * 1000;
  // --timeout bounds the whole wait, systemctl retries included (cloud-init retries those forever while waiting,
  // status.py query_systemctl); running out there is an expired wait as well.
  let systemctlGaveUp = false;
  let runDir = "";
  // Each poll re-reads every file; a refused config file is named once (systemctl's warnings stay as cloud-init's).
  const warned = new Set<string>();
  const evaluate = async (): Promise<BootStatus> => {
    const state = await readBootState({ root, env: deps.env });
    runDir = state.runDir;
    const status = await computeBootStatus(state, {
      systemctl: deps.systemctl,
      query: {
        retry: flags.wait,
        deadline,
        now: deps.now,
        sleep: deps.sleep,
        onDeadline: () => {
          systemctlGaveUp = true;
        },
      },
    });
    for (const warning of status.warnings) {
      if (warned.has(warning)) continue;
      if (warning.startsWith("bootstatus: ignoring ")) warned.add(warning);
      deps.stderr.write(`${warning}\n`);
    }
    return status;
  };
  let status = await evaluate();
  let timedOut = false;
  let waitedForReboot = false;
  if (flags.wait) {
    ({ status, timedOut, waitedForReboot } = await waitForBoot(status, evaluate, {
      now: deps.now,
      sleep: deps.sleep,
      deadline,
      onPoll: deps.onPoll,
      reboot: flags.waitForReboot ? rebootProbe(root) : undefined,
    }));
  }
  let diagnostics: Diagnostics | undefined;
  if (flags.explain) {
    // Loaded on use: a plain `status` stays as fast to start as before.
    const { explainBoot, strictErrors } = await import("./explain.js");
    diagnostics = explainBoot(root);
    if (flags.strict && status.condition !== "error") status = withErrors(status, strictErrors(diagnostics));
  }
  const waitingOn = timedOut ? (waitedForReboot ? "reboot" : "boot") : "systemctl";
  const outcome: Outcome =
    flags.timeout !== undefined && (timedOut || systemctlGaveUp)
      ? { kind: "timeout", seconds: flags.timeout, waitingOn }
      : { kind: "verdict" };
  const exitCode =
    outcome.kind === "timeout" ? EXIT_TIMEOUT : exitCodeFor(status.condition, { allowDegraded });
  return { status, outcome, exitCode, allowDegraded, root, runDir, diagnostics };
}
