import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { fixtureCases } from "./support/fixture-cases.js";
import { runCli } from "./support/run-cli.js";

// The started CLI once per fixture (fixtures.test.ts checks every format through main() in-process).
for (const fixture of fixtureCases()) {
  test(`the bootstatus CLI matches fixture ${fixture.name} with --long`, async () => {
    const root = path.join(fixture.dir, "root");
    const run = await runCli(["--root", root, "--long"], { env: fixture.env });
    assert.equal(run.stdout, fixture.expected("tabular-long.txt"));
    assert.equal(run.code, fixture.exitCode, `exit code (stderr: ${run.stderr})`);
    assert.equal(run.stderr, fixture.expectedStderr(root));
  });
}
