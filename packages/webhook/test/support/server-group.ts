// Starts the servers a test file needs (ours, or Debian's peer) and stops every one of them, also when a test or a
// `before` hook failed: a missing program, a server that exits early or one that never says it is serving rejects
// at once (or at the deadline), and the process it may have started is stopped before the promise settles.
import { type ChildProcess, spawn } from "node:child_process";

/** How to recognise a started server and where to run it. */
export interface StartOptions {
  /** Text the server writes to stderr once it serves (webhook: "serving hooks on"). */
  readonly ready: string;
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Keep stdout as a pipe (default: ignored). */
  readonly stdout?: boolean;
  /** How long to wait for `ready` before giving up (default 20 s). */
  readonly deadlineMs?: number;
}

/** A server that printed its ready text; `log()` is its stderr so far. */
export interface StartedServer {
  readonly child: ChildProcess;
  log(): string;
}

const DEFAULT_DEADLINE_MS = 20_000;
const STOP_GRACE_MS = 2_000;

/** The processes one test file started; `stopAll` in an `after` hook ends every one still running. */
export class ServerGroup {
  readonly #children = new Set<ChildProcess>();

  /** Spawns `command args` and resolves once it printed `options.ready`; rejects (having stopped it) otherwise. */
  async start(command: string, args: readonly string[], options: StartOptions): Promise<StartedServer> {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", options.stdout ? "pipe" : "ignore", "pipe"],
    });
    this.#children.add(child);
    let log = "";
    const deadline = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(new Error(`${command} did not print "${options.ready}" within ${deadline} ms: ${log}`)),
          deadline,
        );
        const fail = (error: Error) => {
          clearTimeout(timer);
          reject(error);
        };
        // A program that cannot be started (ENOENT, EACCES) reports here, never through "exit".
        child.on("error", (error) =>
          fail(new Error(`cannot start ${command}: ${error.message}`, { cause: error })),
        );
        child.on("exit", (code, signal) =>
          fail(new Error(`${command} exited (${code ?? signal}) before serving: ${log}`)),
        );
        child.stderr?.on("data", (c: Buffer) => {
          log += c.toString();
          if (log.includes(options.ready)) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
    } catch (error) {
      await this.stop(child);
      throw error;
    }
    return { child, log: () => log };
  }

  /** Ends one process: SIGTERM, then SIGKILL if it is still there after a grace period; resolves once it exited. */
  async stop(child: ChildProcess): Promise<void> {
    this.#children.delete(child);
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGTERM");
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), STOP_GRACE_MS);
    });
    const done = await Promise.race([exited.then(() => true), grace]);
    clearTimeout(timer);
    if (!done) {
      child.kill("SIGKILL");
      await exited;
    }
  }

  /** Stops every process this group started and that is still running. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.#children].map((child) => this.stop(child)));
  }
}
