import type { ChildProcess, SpawnOptions } from "node:child_process";
import { goErrnoText, goSignalText } from "@local/go-compat/os-error";

/** One program to run: resolved path, argv after argv[0], full environment, working directory. */
export interface RunRequest {
  readonly path: string;
  /** `execute-command` as written: upstream's argv[0]. */
  readonly argv0: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  /** Beyond upstream: seconds before SIGTERM (then SIGKILL 5 s later) to the command's group; 0 = none. */
  readonly timeout: number;
}

/** The outcome of one run: the combined output, and an error text when it failed. */
export interface CommandResult {
  /** Raw bytes: upstream writes them to the response untouched, binary included. */
  readonly output: Buffer;
  readonly error?: string;
  /** The hook's `timeout` stopped the command (the metrics' `timeout` outcome). */
  readonly timedOut?: true;
}

/** What running needs from the process: node's `spawn` and a process-group `kill`. */
export interface ProcessDeps {
  readonly spawn: (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;
  /** Signals a whole process group (a negative-pid `kill`), for the command timeout. */
  readonly killGroup: (pid: number, signal: NodeJS.Signals) => void;
}

/**
 * Runs a program with no shell, stdin empty, and stdout and stderr merged in arrival order (upstream
 * `CombinedOutput`); resolves when the output pipes close, as Go waits for them (adnanh/webhook#245). The error texts
 * are Go's `exec` ones (`exit status 3`, `signal: killed`).
 */
export function nodeSpawn(request: RunRequest, deps: ProcessDeps): Promise<CommandResult> {
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = deps.spawn(request.path, request.args, {
        cwd: request.cwd,
        env: request.env,
        argv0: request.argv0,
        stdio: ["ignore", "pipe", "pipe"],
        // Its own process group, so a timeout can stop the command and everything it started.
        detached: request.timeout > 0,
      });
    } catch {
      // node refuses NUL bytes in argv or env before forking; Go's exec fails the same way (EINVAL).
      resolve({ output: Buffer.alloc(0), error: `fork/exec ${request.path}: invalid argument` });
      return;
    }
    const chunks: Buffer[] = [];
    child.stdout?.on("data", (c: Buffer) => chunks.push(c));
    child.stderr?.on("data", (c: Buffer) => chunks.push(c));
    let timer: NodeJS.Timeout | undefined;
    let killer: NodeJS.Timeout | undefined;
    let timedOut = false;
    if (request.timeout > 0 && child.pid !== undefined) {
      const pid = child.pid;
      timer = setTimeout(() => {
        timedOut = true;
        deps.killGroup(pid, "SIGTERM");
        killer = setTimeout(() => deps.killGroup(pid, "SIGKILL"), 5000);
      }, request.timeout * 1000);
    }
    const finish = (error?: string) => {
      clearTimeout(timer);
      clearTimeout(killer);
      const output = Buffer.concat(chunks);
      const result: CommandResult = error === undefined ? { output } : { output, error };
      resolve(timedOut ? { ...result, timedOut } : result);
    };
    child.on("error", (e) => finish(`fork/exec ${request.path}: ${goErrnoText(e)}`));
    child.on("close", (code, signal) => {
      if (signal) finish(`signal: ${goSignalText(signal)}`);
      else if (code !== 0) finish(`exit status ${code}`);
      else finish();
    });
  });
}
