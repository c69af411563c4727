import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { FIXTURES } from "./run-cli.js";

/** One case of test/fixtures/: its directory, the environment it runs with, and its expected exit code. */
export interface FixtureCase {
  name: string;
  dir: string;
  /** The case's answers for the fake `systemctl` (may not exist: a healthy host). */
  systemctlDir: string;
  /** case.json's `env` plus FAKE_SYSTEMCTL_DIR naming `systemctlDir` for test/fixtures/bin/systemctl. */
  env: Record<string, string>;
  exitCode: number;
  /** The expected stdout in `file` of the case's `expected/`. */
  expected(file: string): string;
  /**
   * The expected stderr of a run with `--root <root>` (the stderr summary and any systemctl warning): the
   * case's `expected/stderr.txt` with `<root>` replaced by `root`, or "" when the case has none.
   */
  expectedStderr(root: string): string;
}

/** Every fixture case (a directory with a case.json), sorted by name. */
export function fixtureCases(): FixtureCase[] {
  return readdirSync(FIXTURES, { withFileTypes: true })
    .filter((d) => existsSync(path.join(FIXTURES, d.name, "case.json")))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const dir = path.join(FIXTURES, name);
      const spec = JSON.parse(readFileSync(path.join(dir, "case.json"), "utf8")) as {
        env: Record<string, string>;
      };
      return {
        name,
        dir,
        systemctlDir: path.join(dir, "systemctl"),
        env: { FAKE_SYSTEMCTL_DIR: path.join(dir, "systemctl"), ...spec.env },
        exitCode: Number(readFileSync(path.join(dir, "expected/exit-code"), "utf8").trim()),
        expected: (file: string) => readFileSync(path.join(dir, "expected", file), "utf8"),
        expectedStderr: (root: string) => {
          const file = path.join(dir, "expected/stderr.txt");
          return existsSync(file) ? readFileSync(file, "utf8").replaceAll("<root>", root) : "";
        },
      };
    });
}
