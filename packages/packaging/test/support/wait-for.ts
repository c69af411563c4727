import { setTimeout as sleep } from "node:timers/promises";

/** Polls `attempt` until it returns a value other than undefined, or fails naming `what` after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  attempt: () => Promise<T | undefined>,
  options: { timeoutMs: number; detail?: () => string },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await attempt();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await sleep(100);
  }
  throw new Error(
    `timed out after ${options.timeoutMs} ms waiting for ${what}${last ? ` (last error: ${String(last)})` : ""}${options.detail ? `\n${options.detail()}` : ""}`,
  );
}
