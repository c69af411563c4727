import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";

/**
 * The long-running programs a test file starts (servers, socket activators). `stopAll` in an `after` hook ends every
 * one still running, failure or not: SIGTERM, then SIGKILL after a deadline.
 */
export class Servers {
  readonly #children = new Set<ChildProcess>();

  /** Starts a program; its output is kept for assertion messages (`output(child)`). */
  start(
    file: string,
    args: readonly string[],
    options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
  ): ChildProcess {
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const keep = (chunk: Buffer) => {
      output += chunk.toString("utf8");
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    OUTPUT.set(child, () => output);
    this.#children.add(child);
    child.once("exit", () => this.#children.delete(child));
    return child;
  }

  /** Sends SIGTERM and waits for the exit; SIGKILL past `deadlineMs`. Returns the exit code (null if killed). */
  async stop(child: ChildProcess, deadlineMs = 10_000): Promise<number | null> {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), deadlineMs);
    try {
      const [code] = (await exited) as [number | null];
      return code;
    } finally {
      clearTimeout(timer);
    }
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.#children].map((child) => this.stop(child, 5_000)));
  }
}

const OUTPUT = new WeakMap<ChildProcess, () => string>();

/** Everything a started program wrote to stdout and stderr so far. */
export function output(child: ChildProcess): string {
  return OUTPUT.get(child)?.() ?? "";
}
