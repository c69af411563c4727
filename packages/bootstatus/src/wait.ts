import type { BootStatus } from "./boot-status.js";

/** Clock, sleep and polling hooks of the wait loop, injected so tests drive time. */
export interface WaitOptions {
  now(): number;
  sleep(ms: number): Promise<void>;
  /** Absolute deadline in ms (`--timeout`); undefined waits forever, like cloud-init. */
  deadline: number | undefined;
  /** Called before each re-read; tabular output prints a `.` here (status.py handle_status_args). */
  onPoll(): void;
}

/** cloud-init polls every 0.25 s (status.py handle_status_args). */
const POLL_MS = 250;

function pending(status: BootStatus): boolean {
  return status.running === "not started" || status.running === "running";
}

/**
 * Re-evaluates the status every 0.25 s while cloud-init has not started or is running. Returns the last status
 * and whether the deadline cut the wait short.
 */
export async function waitForBoot(
  first: BootStatus,
  evaluate: () => Promise<BootStatus>,
  options: WaitOptions,
): Promise<{ status: BootStatus; timedOut: boolean }> {
  let status = first;
  while (pending(status)) {
    if (options.deadline !== undefined && options.now() >= options.deadline)
      return { status, timedOut: true };
    options.onPoll();
    status = await evaluate();
    if (!pending(status)) break;
    const left =
      options.deadline === undefined ? POLL_MS : Math.min(POLL_MS, options.deadline - options.now());
    if (left > 0) await options.sleep(left);
  }
  return { status, timedOut: false };
}
