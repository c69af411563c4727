#!/usr/bin/env node
// Re-records test/fixtures/master/answers.json: runs every scenario of test/support/master-scenarios.ts against a
// build of upstream webhook master and writes what it answered. The tests compare ours with
// those answers; CI cannot fetch or build upstream, so the recording is committed.
//
//   npm run build -w packages/webhook
//   node packages/webhook/scripts/record-master-fixtures.mjs /path/to/webhook-master
//
// The binary of upstream master is yours to provide; this repository neither ships nor builds one. The activation
// scenarios need systemd-socket-activate (Debian package `systemd`).
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Debian's `systemd-socket-activate` (package `systemd`), for the activation scenarios. */
const SOCKET_ACTIVATE = "/usr/bin/systemd-socket-activate";
const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const binary = process.argv[2];
if (binary === undefined) {
  process.stderr.write("usage: record-master-fixtures.mjs <path to a webhook built from upstream master>\n");
  process.exit(2);
}
const { SCENARIOS, runScenario } = await import(join(packageDir, "dist/test/support/master-scenarios.js"));
const version = execFileSync(binary, ["-version"], { encoding: "utf8" }).trim();
const scenarios = {};
for (const scenario of SCENARIOS) {
  process.stderr.write(`${scenario.name}\n`);
  scenarios[scenario.name] = await runScenario(scenario, {
    command: [binary],
    socketActivate: SOCKET_ACTIVATE,
  });
}
const out = join(packageDir, "test/fixtures/master/answers.json");
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify({ recordedWith: version, scenarios }, null, 2)}\n`);
process.stderr.write(`wrote ${out}\n`);
