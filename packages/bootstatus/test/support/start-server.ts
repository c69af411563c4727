import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";

/** How long a server may take to print its listening address before the test fails. */
const START_DEADLINE_MS = 20_000;

/** A started server process: `child` is handed out at once so the caller's `after` hook stops it in every case. */
export interface StartedServer {
  child: ChildProcess;
  /** Resolves with the first capture of `ready` in its output, or rejects when it exits or the deadline passes. */
  ready: Promise<string>;
  /** Everything it printed so far. */
  log(): string;
}

/** Starts `command args` and waits for a line of its stdout/stderr to match `ready` (its first group is returned). */
export function startServer(command: string, args: readonly string[], ready: RegExp): StartedServer {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  const readyPromise = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new Error(`${command} printed nothing matching ${ready} within ${START_DEADLINE_MS} ms: ${log}`),
        ),
      START_DEADLINE_MS,
    );
    const onData = (chunk: Buffer): void => {
      log += chunk.toString("utf8");
      const match = ready.exec(log);
      if (match !== null) {
        clearTimeout(timer);
        resolve(match[1] ?? match[0]);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited with ${code}: ${log}`));
    });
  });
  return { child, ready: readyPromise, log: () => log };
}
