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
  /**
   * Beyond upstream (streamed output, jobs): receives the merged output as it is read, instead of the result
   * collecting it. A returned promise stops reading until it settles, so a slow reader holds the command back
   * (its pipe fills) instead of buffering: memory stays flat however much it writes.
   */
  readonly onOutput?: (chunk: Buffer) => void | Promise<void>;
  /** Beyond upstream: aborting stops the command's process group (SIGTERM, then SIGKILL after `graceMs`). */
  readonly abort?: AbortSignal;
  /** Milliseconds between SIGTERM and SIGKILL, for the timeout and `abort` (default 5000). */
  readonly graceMs?: number;
}

/** The default time between SIGTERM and SIGKILL. */
export const DEFAULT_GRACE_MS = 5000;

/** Whether the command runs in a process group of its own (so it can be stopped with all it started). */
export function needsGroup(request: RunRequest): boolean {
  return request.timeout > 0 || request.abort !== undefined;
}

/**
 * Arms the hook's timeout and the request's `abort`: SIGTERM to the command's group, then SIGKILL after the grace.
 * Returns the disarm function and whether the timeout fired.
 */
export function armStop(
  pid: number,
  request: RunRequest,
  killGroup: (pid: number, signal: NodeJS.Signals) => void,
): { disarm: () => void; timedOut: () => boolean } {
  let timedOut = false;
  let stopping = false;
  let killer: NodeJS.Timeout | undefined;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    killGroup(pid, "SIGTERM");
    killer = setTimeout(() => killGroup(pid, "SIGKILL"), request.graceMs ?? DEFAULT_GRACE_MS);
  };
  const timer =
    request.timeout > 0
      ? setTimeout(() => {
          timedOut = true;
          stop();
        }, request.timeout * 1000)
      : undefined;
  const onAbort = () => stop();
  if (request.abort?.aborted) stop();
  else request.abort?.addEventListener("abort", onAbort, { once: true });
  return {
    disarm: () => {
      clearTimeout(timer);
      clearTimeout(killer);
      request.abort?.removeEventListener("abort", onAbort);
    },
    timedOut: () => timedOut,
  };
}

/** The outcome of one run: the combined output, and an error text when it failed. */
export interface CommandResult {
  /** Raw bytes: upstream writes them to the response untouched, binary included. */
  readonly output: Buffer;
  readonly error?: string;
  /** The hook's `timeout` stopped the command (the metrics' `timeout` outcome). */
  readonly timedOut?: true;
  /** Bytes the command wrote (with `onOutput`, `output` is empty and this counts what went there). */
  readonly outputBytes?: number;
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
        detached: needsGroup(request),
      });
    } catch {
      // node refuses NUL bytes in argv or env before forking; Go's exec fails the same way (EINVAL).
      resolve({ output: Buffer.alloc(0), error: `fork/exec ${request.path}: invalid argument` });
      return;
    }
    const chunks: Buffer[] = [];
    let bytes = 0;
    const onOutput = request.onOutput;
    const take = (chunk: Buffer) => {
      bytes += chunk.length;
      if (onOutput === undefined) {
        chunks.push(chunk);
        return;
      }
      const taken = onOutput(chunk);
      if (taken === undefined) return;
      // Hold the command back until the reader has taken this piece.
      child.stdout?.pause();
      child.stderr?.pause();
      void taken.finally(() => {
        child.stdout?.resume();
        child.stderr?.resume();
      });
    };
    child.stdout?.on("data", take);
    child.stderr?.on("data", take);
    const stop =
      child.pid === undefined
        ? { disarm: () => {}, timedOut: () => false }
        : armStop(child.pid, request, deps.killGroup);
    const finish = (error?: string) => {
      stop.disarm();
      const output = Buffer.concat(chunks);
      let result: CommandResult = error === undefined ? { output } : { output, error };
      // Streamed output is not in `output`: its size is told instead.
      if (onOutput !== undefined) result = { ...result, outputBytes: bytes };
      resolve(stop.timedOut() ? { ...result, timedOut: true } : result);
    };
    child.on("error", (e) => finish(`fork/exec ${request.path}: ${goErrnoText(e)}`));
    child.on("close", (code, signal) => {
      if (signal) finish(`signal: ${goSignalText(signal)}`);
      else if (code !== 0) finish(`exit status ${code}`);
      else finish();
    });
  });
}
