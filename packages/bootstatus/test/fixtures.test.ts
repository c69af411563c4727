import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { FIXTURES, runCli } from "./run-cli.js";

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
    const dir = path.join(FIXTURES, name);
    const spec = JSON.parse(readFileSync(path.join(dir, "case.json"), "utf8")) as {
      env: Record<string, string>;
    };
    const exitCode = Number(readFileSync(path.join(dir, "expected/exit-code"), "utf8").trim());
    const env = { FAKE_SYSTEMCTL_DIR: path.join(dir, "systemctl"), ...spec.env };
    const runs = await Promise.all(
      OUTPUTS.map(([flags]) => runCli(["--root", path.join(dir, "root"), ...flags], { env })),
    );
    OUTPUTS.forEach(([flags, file], i) => {
      const run = runs[i];
      assert.ok(run);
      const expected = readFileSync(path.join(dir, "expected", file), "utf8");
      assert.equal(run.stdout, expected, `${name}: ${flags.join(" ")} stdout`);
      assert.equal(run.code, exitCode, `${name}: ${flags.join(" ")} exit code (stderr: ${run.stderr})`);
    });
  });
}
