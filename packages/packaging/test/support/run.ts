import { execFile } from "node:child_process";

/** What one finished program produced. */
export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs a program to completion and never throws for its exit status; it is killed (SIGKILL) past `timeoutMs`, which
 * then shows as a non-zero `code` and a note in `stderr`, so a test's assertion message says what hung.
 */
export function run(
  file: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      {
        cwd: options.cwd,
        env: options.env ?? process.env,
        encoding: "utf8",
        timeout: options.timeoutMs,
        killSignal: "SIGKILL",
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error === null) return resolve({ code: 0, stdout, stderr });
        const killed = error.killed ? `\n[killed after ${options.timeoutMs} ms]` : "";
        const code = typeof error.code === "number" ? error.code : -1;
        resolve({ code, stdout, stderr: `${stderr}${killed}${code === -1 ? `\n${error.message}` : ""}` });
      },
    );
  });
}

/** `run`, but a non-zero exit fails with the program's output in the message. */
export async function runOk(
  file: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<RunResult> {
  const result = await run(file, args, options);
  if (result.code !== 0) {
    throw new Error(`${file} ${args.join(" ")} exited ${result.code}\n${result.stdout}\n${result.stderr}`);
  }
  return result;
}

/**
 * This environment without npm's npm_* variables: a test started by `npm run test:peers` inherits them, and a
 * nested npm (or a tool) must behave as for a user, not as a script of this repository.
 */
export function userEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
  return { ...env, ...extra };
}
