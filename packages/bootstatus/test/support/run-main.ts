import { main } from "../../src/main.js";
import { fakeSystemctl } from "./fake-systemctl.js";

/** What one run produced. */
export interface MainRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `main()` in this process with the effects cli.ts wires but for `systemctl`, answered like
 * test/fixtures/bin/systemctl from `systemctlDir` without a process; `input` is what `validate -` reads.
 */
export async function runMain(
  args: readonly string[],
  options: { env: Record<string, string>; systemctlDir: string; input?: string },
): Promise<MainRun> {
  let stdout = "";
  let stderr = "";
  const code = await main(args, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env: options.env,
    readInput: async () => options.input ?? "",
    now: () => Date.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    systemctl: fakeSystemctl(options.systemctlDir),
  });
  return { code, stdout, stderr };
}
