import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { main } from "../src/main.js";
import { runSystemctl } from "../src/systemd.js";
import { FIXTURES, runCli } from "./support/run-cli.js";

// One row per output: the CLI flags and the expected file holding its bytes.
const OUTPUTS: [string[], string][] = [
  [[], "tabular.txt"],
  [["--long"], "tabular-long.txt"],
  [["--long", "--format", "json"], "json.json"],
  [["--format", "json"], "json.json"],
  [["--long", "--format", "yaml"], "yaml.yaml"],
  [["--long", "--format", "cloud-init-json"], "cloud-init-json.json"],
  [["--long", "--format", "prometheus"], "prometheus.txt"],
];

const cases = readdirSync(FIXTURES, { withFileTypes: true })
  .filter((d) => existsSync(path.join(FIXTURES, d.name, "case.json")))
  .map((d) => d.name)
  .sort();

interface Fixture {
  dir: string;
  env: Record<string, string>;
  exitCode: number;
}

function loadFixture(name: string): Fixture {
  const dir = path.join(FIXTURES, name);
  const spec = JSON.parse(readFileSync(path.join(dir, "case.json"), "utf8")) as {
    env: Record<string, string>;
  };
  const exitCode = Number(readFileSync(path.join(dir, "expected/exit-code"), "utf8").trim());
  return { dir, env: { FAKE_SYSTEMCTL_DIR: path.join(dir, "systemctl"), ...spec.env }, exitCode };
}

/**
 * Runs `main()` in this process with the effects cli.ts wires (real clock, the fake `systemctl` of
 * test/fixtures/bin found on PATH, no inherited environment, as runCli() does): the whole command but for the
 * process start, which costs about a second per run on a loaded 2-core machine (one CLI run per fixture below
 * keeps the started binary covered).
 */
async function runMain(args: readonly string[], extraEnv: Record<string, string>) {
  const env = { PATH: `${FIXTURES}bin:/usr/bin:/bin`, ...extraEnv };
  let stdout = "";
  let stderr = "";
  const code = await main(args, {
    stdout: {
      write: (s: string) => {
        stdout += s;
      },
    },
    stderr: {
      write: (s: string) => {
        stderr += s;
      },
    },
    env,
    readInput: async () => "",
    now: () => Date.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    systemctl: runSystemctl(env),
  });
  return { code, stdout, stderr };
}

test("the fixture set covers every boot status code", () => {
  const codes = new Set(
    cases.map(
      (c) =>
        JSON.parse(readFileSync(path.join(FIXTURES, c, "expected/json.json"), "utf8")).status
          .boot_status_code,
    ),
  );
  assert.equal(codes.size, 8);
});

for (const name of cases) {
  test(`bootstatus matches fixture ${name} in every format`, async () => {
    const { dir, env, exitCode } = loadFixture(name);
    for (const [flags, file] of OUTPUTS) {
      const run = await runMain(["--root", path.join(dir, "root"), ...flags], env);
      const expected = readFileSync(path.join(dir, "expected", file), "utf8");
      assert.equal(run.stdout, expected, `${name}: ${flags.join(" ")} stdout`);
      assert.equal(run.code, exitCode, `${name}: ${flags.join(" ")} exit code (stderr: ${run.stderr})`);
    }
  });

  test(`the bootstatus CLI matches fixture ${name} with --long`, async () => {
    const { dir, env, exitCode } = loadFixture(name);
    const run = await runCli(["--root", path.join(dir, "root"), "--long"], { env });
    assert.equal(run.stdout, readFileSync(path.join(dir, "expected/tabular-long.txt"), "utf8"));
    assert.equal(run.code, exitCode, `exit code (stderr: ${run.stderr})`);
  });
}
