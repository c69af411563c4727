import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { FIXTURES, runCli } from "./support/run-cli.js";

// --explain reads cloud-init.log "as cloud-init analyze reads it": Debian's own `cloud-init analyze show` over the
// same logs must give the same stages, in the same order, with the same durations, and the same module durations.

const CLOUD_INIT = "/usr/bin/cloud-init";

interface Stage {
  stage: string;
  duration_seconds: number | null;
  modules: { module: string; duration_seconds: number | null }[];
}

/** Stages and config modules as `cloud-init analyze show` prints them (cloudinit/analyze/show.py). */
function analyze(log: string): { stage: string; seconds: number; modules: [string, number][] }[] {
  const text = execFileSync(CLOUD_INIT, ["analyze", "show", "-i", log], { encoding: "utf8" });
  const stages: { stage: string; seconds: number; modules: [string, number][] }[] = [];
  for (const line of text.split("\n")) {
    const start = /^Starting stage: (\S+)$/.exec(line);
    if (start?.[1] !== undefined) stages.push({ stage: start[1], seconds: Number.NaN, modules: [] });
    const module = /^\|`->.*?\bconfig-([\w-]+) .* \+(\d+\.\d+)s$/.exec(line);
    if (module?.[1] !== undefined) stages.at(-1)?.modules.push([module[1], Number(module[2])]);
    const finished = /^Finished stage: \((\S+)\) (\d+\.\d+) seconds$/.exec(line);
    const current = stages.at(-1);
    if (finished !== null && current !== undefined) current.seconds = Number(finished[2]);
  }
  return stages;
}

for (const name of ["explain-module-fails", "explain-final-rerun", "explain-healthy"]) {
  test(`${name}: stages, modules and durations as Debian's \`cloud-init analyze show\` has them`, async () => {
    assert.ok(existsSync(CLOUD_INIT), `${CLOUD_INIT} is missing (apt-get install cloud-init)`);
    const root = path.join(FIXTURES, name, "root");
    const theirs = analyze(path.join(root, "var/log/cloud-init.log"));
    const run = await runCli(["--explain", "--format", "json", "--quiet", "--root", root]);
    const ours = (JSON.parse(run.stdout) as { diagnostics: { stages: Stage[] } }).diagnostics.stages;
    assert.deepEqual(
      ours.map((s) => [s.stage, s.duration_seconds]),
      theirs.map((s) => [s.stage, s.seconds]),
    );
    assert.deepEqual(
      ours.map((s) => s.modules.map((m) => [m.module, m.duration_seconds])),
      theirs.map((s) => s.modules),
    );
  });
}
