import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { main } from "../src/main.js";
import { fakeSystemctl } from "./support/fake-systemctl.js";
import type { FixtureCase } from "./support/fixture-cases.js";
import { fixtureCases } from "./support/fixture-cases.js";

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

const cases = fixtureCases();

/**
 * Runs `main()` in this process with the effects cli.ts wires but for `systemctl`, which answers like
 * test/fixtures/bin/systemctl without a process (the environment holds only the case's variables): the whole
 * command but for process starts, which cost up to a second each on a loaded 2-core machine.
 * fixtures-cli.test.ts starts the CLI, with the fake `systemctl` on PATH, once per fixture.
 */
async function runMain(args: readonly string[], fixture: FixtureCase) {
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
    env: fixture.env,
    readInput: async () => "",
    now: () => Date.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    systemctl: fakeSystemctl(fixture.systemctlDir),
  });
  return { code, stdout, stderr };
}

test("the fixture set has degraded, error and healthy cases, so the --allow-degraded rows mean something", () => {
  const codes = new Set(cases.map((c) => c.exitCode));
  assert.deepEqual([...codes].sort(), [0, 1, 2]);
});

test("the fixture set covers every boot status code", () => {
  const codes = new Set(cases.map((c) => JSON.parse(c.expected("json.json")).status.boot_status_code));
  assert.equal(codes.size, 8);
});

for (const fixture of cases) {
  const root = path.join(fixture.dir, "root");
  test(`bootstatus matches fixture ${fixture.name} in every format`, async () => {
    for (const [flags, file] of OUTPUTS) {
      const run = await runMain(["--root", root, ...flags], fixture);
      assert.equal(run.stdout, fixture.expected(file), `${fixture.name}: ${flags.join(" ")} stdout`);
      assert.equal(
        run.code,
        fixture.exitCode,
        `${fixture.name}: ${flags.join(" ")} exit code (stderr: ${run.stderr})`,
      );
      // The stderr summary is the same whatever the format: it never depends on what stdout shows.
      assert.equal(run.stderr, fixture.expectedStderr(root), `${fixture.name}: ${flags.join(" ")} stderr`);
    }
  });

  // Issue 32: --allow-degraded changes only the exit code of a degraded boot, --quiet only stderr.
  test(`bootstatus --allow-degraded --quiet keeps fixture ${fixture.name}'s output in every format`, async () => {
    for (const [flags, file] of OUTPUTS) {
      const run = await runMain(["--allow-degraded", "--root", root, "--quiet", ...flags], fixture);
      assert.equal(run.stdout, fixture.expected(file), `${fixture.name}: ${flags.join(" ")} stdout`);
      assert.equal(
        run.code,
        fixture.exitCode === 2 ? 0 : fixture.exitCode,
        `${fixture.name}: ${flags.join(" ")}`,
      );
      assert.equal(run.stderr, "", `${fixture.name}: ${flags.join(" ")} stderr`);
    }
  });
}
