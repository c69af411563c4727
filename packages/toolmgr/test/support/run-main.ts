import { spawn } from "node:child_process";
import type { Deps } from "../../src/deps.js";
import { main } from "../../src/main.js";

/** What one `main()` call printed and returned. */
export interface MainOutcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `main(args)` in this process as cli.ts would on linux/amd64 (node's `spawn`, no signal subscriptions, every
 * store marker's process alive), with output captured; `env`, `cwd`, the clock and the launcher the shims hand over
 * to are the caller's. The home directory is `env.HOME`, or `homedir` when given.
 */
export async function runMain(
  args: readonly string[],
  options: {
    cwd: string;
    env: Record<string, string | undefined>;
    now: () => Date;
    homedir?: string;
    launcher?: Deps["launcher"];
  },
): Promise<MainOutcome> {
  let stdout = "";
  let stderr = "";
  const deps: Deps = {
    io: { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } },
    env: options.env,
    cwd: options.cwd,
    fetch: globalThis.fetch,
    now: options.now,
    runtime: {
      platform: "linux",
      arch: "x64",
      homedir: options.homedir ?? options.env.HOME ?? "/nonexistent",
    },
    spawn,
    onSignal: () => () => {},
    processes: { pid: process.pid, isRunning: () => true },
    ...(options.launcher === undefined ? {} : { launcher: options.launcher }),
  };
  const code = await main(args, deps);
  return { code, stdout, stderr };
}
