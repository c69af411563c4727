import { execFile, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** Path of the built launcher, as users run it. */
export const TOOLMGR_BIN = fileURLToPath(new URL("../../../bin/toolmgr.js", import.meta.url));

/** The package directory (where registry/, policy/ and README.md live). */
export const PACKAGE_DIR = fileURLToPath(new URL("../../..", import.meta.url));

/** What one run of the built CLI did. */
export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the built `toolmgr` with arguments, in `cwd`, with extra environment variables. */
export function runCli(
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TOOLMGR_BIN, ...args], {
      cwd: options.cwd ?? PACKAGE_DIR,
      env: { ...process.env, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Runs a program (a shim, a tool) with exactly `env` (nothing inherited), settling with its exit code rather than
 * rejecting on a non-zero one; a run past `timeout` (10 s by default) is killed.
 */
export function runProgram(
  file: string,
  args: readonly string[],
  options: { cwd: string; env: Record<string, string>; timeout?: number },
): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { cwd: options.cwd, env: options.env, timeout: options.timeout ?? 10_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : null;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
