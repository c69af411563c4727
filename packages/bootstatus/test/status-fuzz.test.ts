import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";
import { TreeGenerator, writeStateTree } from "./support/random-state-tree.js";
import { runCli } from "./support/run-cli.js";
import { runMain } from "./support/run-main.js";

// Property fuzzing of `status` on the random state trees of status-fuzz.peers.test.ts (which compares them with
// the real cloud-init), with nothing but Node: whatever the tree, every format answers (no stack trace) with one
// exit code of 0, 1 or 2; a malformed status.json is exit 1; report v1 in YAML is the JSON one and passes
// `validate`; cloud-init-json is JSON; `--quiet` changes only stderr; `--wait` on a settled boot prints what a
// plain run prints; the started bin prints what main() prints. FUZZ_SEED / FUZZ_CASES change the run.

const SEED = Number(process.env.FUZZ_SEED ?? 20261128);
const CASES = Number(process.env.FUZZ_CASES ?? 150);
const STARTED_CLI_TREES = 10;
const BIN = fileURLToPath(new URL("../../bin/bootstatus.js", import.meta.url));
const FORMATS = [
  [],
  ["--long"],
  ["--format", "json"],
  ["--format", "yaml"],
  ["--format", "cloud-init-json"],
  ["--format", "prometheus"],
];

const work = mkdtempSync(path.join(tmpdir(), "bootstatus-fuzz-props-"));
after(() => rmSync(work, { recursive: true, force: true }));

test(`bootstatus status holds its properties on ${CASES} random trees (seed ${SEED})`, async () => {
  const gen = new TreeGenerator(SEED);
  const findings: string[] = [];
  for (let i = 0; i < CASES; i++) {
    const tree = gen.next();
    const dir = path.join(work, `c${i}`);
    const root = path.join(dir, "root");
    const systemctlDir = path.join(dir, "systemctl");
    writeStateTree(tree, root, systemctlDir);
    const found = (what: string) => findings.push(`tree ${i} (seed ${SEED}): ${what}`);
    const run = (args: string[]) => runMain(["--root", root, ...args], { env: tree.env, systemctlDir });
    const outputs = new Map<string, { code: number; stdout: string; stderr: string }>();
    for (const format of FORMATS) {
      const r = await run(["--quiet", ...format]);
      outputs.set(format.join(" "), r);
      if (/\n {4}at /.test(r.stderr) || ![0, 1, 2].includes(r.code))
        found(`${format.join(" ")}: ${JSON.stringify(r)}`);
      const loud = await run(format);
      if (loud.stdout !== r.stdout || loud.code !== r.code)
        found(`${format.join(" ")}: --quiet changes stdout or code`);
    }
    const codes = new Set([...outputs.values()].map((r) => r.code));
    if (codes.size !== 1) found(`exit codes differ between formats: ${[...codes].join(", ")}`);
    const json = outputs.get("--format json")?.stdout ?? "";
    const report = JSON.parse(json) as { status: { extended_status: string }; errors: { message: string }[] };
    if (report.errors.some((e) => e.message.startsWith("Cannot read ")) && !codes.has(1))
      found(`malformed status.json exits ${[...codes].join(", ")}, not 1`);
    try {
      assert.deepEqual(parseYaml(outputs.get("--format yaml")?.stdout ?? ""), report);
      JSON.parse(outputs.get("--format cloud-init-json")?.stdout ?? "");
    } catch (error) {
      found(`yaml is not the json report, or cloud-init-json is not JSON: ${error}`);
    }
    const valid = await runMain(["validate", "-"], { env: {}, systemctlDir, input: json });
    if (valid.code !== 0) found(`report v1 does not validate: ${valid.stdout}${valid.stderr}`);
    if (!/(not started|running)$/.test(report.status.extended_status) && !tree.traits.systemctlFails) {
      for (const format of [["--long"], ["--format", "cloud-init-json"]]) {
        const waited = await run(["--quiet", "--wait", ...format]);
        const plain = outputs.get(format.join(" "));
        if (waited.stdout !== plain?.stdout || waited.code !== plain?.code)
          found(`--wait ${format.join(" ")} differs`);
      }
    }
    if (i < STARTED_CLI_TREES) {
      const { PATH: _path, LANG: _lang, ...env } = tree.env;
      const started = await runCli(["--root", root, "--long"], {
        env: { ...env, FAKE_SYSTEMCTL_DIR: systemctlDir },
        script: BIN,
      });
      const inProcess = await run(["--long"]);
      // Node's stream writes a lone surrogate as U+FFFD.
      inProcess.stdout = Buffer.from(inProcess.stdout, "utf8").toString("utf8");
      inProcess.stderr = Buffer.from(inProcess.stderr, "utf8").toString("utf8");
      if (JSON.stringify(started) !== JSON.stringify(inProcess))
        found(`the started CLI printed ${JSON.stringify(started)}, main() ${JSON.stringify(inProcess)}`);
    }
    rmSync(dir, { recursive: true, force: true });
  }
  assert.deepEqual(findings, []);
});
