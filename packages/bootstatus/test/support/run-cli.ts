import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The built CLI, started the way users start it. */
export const CLI = fileURLToPath(new URL("../../src/cli.js", import.meta.url));
/** Fixture directory (not copied by tsc, so reached from the package root). */
export const FIXTURES = fileURLToPath(new URL("../../../test/fixtures/", import.meta.url));

/** What one run of the CLI produced. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `node dist/src/cli.js <args>` (or another script such as the bin) with a controlled environment (no inherited KERNEL_CMDLINE). */
export function runCli(
  args: readonly string[],
  options: {
    env?: Record<string, string>;
    input?: string;
    script?: string;
    onStdout?: (text: string) => void;
  } = {},
): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [options.script ?? CLI, ...args],
      {
        env: { PATH: `${FIXTURES}bin:/usr/bin:/bin`, FAKE_SYSTEMCTL_DIR: "/nonexistent", ...options.env },
        encoding: "utf8",
        timeout: 20_000,
        maxBuffer: 256 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
    const { onStdout } = options;
    if (onStdout !== undefined) child.stdout?.on("data", (chunk: string | Buffer) => onStdout(String(chunk)));
    child.stdin?.end(options.input ?? "");
  });
}
