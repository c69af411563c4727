import type { BootStatus } from "./boot-status.js";
import type { RebootProbe } from "./reboot.js";

/** Clock, sleep and polling hooks of the wait loop, injected so tests drive time. */
export interface WaitOptions {
  now(): number;
  sleep(ms: number): Promise<void>;
  /** Absolute deadline in ms (`--timeout`); undefined waits forever, like cloud-init. */
  deadline: number | undefined;
  /** Called before each re-read; tabular output prints a `.` here (status.py handle_status_args). */
  onPoll(): void;
  /** Ours (`--wait-for-reboot`, the default): wait across a reboot the boot asked for. Undefined: as cloud-init. */
  reboot?: RebootProbe | undefined;
}

/** How a wait ended: the last status, whether the deadline cut it short, and what it was waiting on then. */
export interface WaitResult {
  status: BootStatus;
  timedOut: boolean;
  /** The wait was for a reboot the boot asked for (then for the next boot's result). */
  waitedForReboot: boolean;
}

/** cloud-init polls every 0.25 s (status.py handle_status_args). */
const POLL_MS = 250;

function pending(status: BootStatus): boolean {
  return status.running === "not started" || status.running === "running";
}

/**
 * Re-evaluates the status every 0.25 s while cloud-init has not started or is running. With `reboot`, a final
 * status of a boot that asked for a reboot is not final: the wait goes on until the boot id changes and the new
 * boot's status is final. A boot id that cannot be read at the start turns this off (nothing to compare with).
 */
export async function waitForBoot(
  first: BootStatus,
  evaluate: () => Promise<BootStatus>,
  options: WaitOptions,
): Promise<WaitResult> {
  let status = first;
  const { reboot } = options;
  let bootAtStart = reboot?.bootId();
  let watchedItRun = pending(first);
  let awaitingReboot = false;
  let waitedForReboot = false;
  const settled = async (): Promise<boolean> => {
    if (awaitingReboot) {
      const id = reboot?.bootId();
      if (id !== undefined && id !== bootAtStart) {
        // A new boot, which may ask for a reboot of its own. A final status read before the id changed may still
        // be the old boot's: read it afresh before trusting it.
        awaitingReboot = false;
        bootAtStart = id;
        if (!pending(status)) return false;
      }
    }
    if (pending(status)) {
      watchedItRun = true;
      return false;
    }
    if (awaitingReboot) return false;
    if (reboot === undefined || bootAtStart === undefined || reboot.bootId() !== bootAtStart) return true;
    // power_state runs once per instance: after a reboot this waiter saw, only a boot time can tell it ran again.
    if (!(await reboot.pending({ watchedItRun: watchedItRun && !waitedForReboot }))) return true;
    awaitingReboot = true;
    waitedForReboot = true;
    return false;
  };
  while (!(await settled())) {
    if (options.deadline !== undefined && options.now() >= options.deadline) {
      return { status, timedOut: true, waitedForReboot };
    }
    options.onPoll();
    status = await evaluate();
    // A final status is looked at at once (cloud-init stops without sleeping); only then may a reboot be pending.
    if (!awaitingReboot && !pending(status)) continue;
    const left =
      options.deadline === undefined ? POLL_MS : Math.min(POLL_MS, options.deadline - options.now());
    if (left > 0) await options.sleep(left);
  }
  return { status, timedOut: false, waitedForReboot };
}
