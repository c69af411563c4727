import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { convertCloudInitJson } from "../src/convert.js";
import { parsePythonJson } from "../src/python/float.js";
import { validateReport } from "../src/validate.js";
import { FIXTURES, runCli } from "./support/run-cli.js";

const SAMPLES = path.join(FIXTURES, "convert");

for (const input of readdirSync(SAMPLES).filter((f) => f.endsWith(".json") && !f.endsWith(".v1.json"))) {
  test(`bootstatus convert turns ${input} into the reviewed report v1`, async () => {
    const expected = readFileSync(path.join(SAMPLES, input.replace(/\.json$/, ".v1.json")), "utf8");
    const run = await runCli(["convert", path.join(SAMPLES, input)]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, expected);
    assert.deepEqual(validateReport(JSON.parse(run.stdout)), []);
  });
}

// Current cloud-init's own JSON of each fixture converts back to the report bootstatus computes, except where
// status.json's v1 deliberately shadows computed keys (cloud-init's output then carries the shadow values), and
// levels-integer-like, whose init stage lists WARNING before "10": cloud-init's JSON sorts each stage's levels,
// so the first-seen order convert rebuilds from it is the sorted one.
const cases = readdirSync(FIXTURES).filter(
  (c) =>
    existsSync(path.join(FIXTURES, c, "case.json")) &&
    !c.startsWith("v1-shadows-") &&
    c !== "levels-integer-like",
);
test("convertCloudInitJson() maps every fixture's cloud-init JSON back to its report v1", () => {
  for (const c of cases) {
    const ours = parsePythonJson(
      readFileSync(path.join(FIXTURES, c, "expected/cloud-init-json.json"), "utf8"),
    );
    const v1 = JSON.parse(readFileSync(path.join(FIXTURES, c, "expected/json.json"), "utf8"));
    assert.deepEqual(convertCloudInitJson(ours), v1, c);
  }
});

// cloud-init writes a status.json number past the float range back as Infinity (json.dumps allow_nan).
test("bootstatus convert reads cloud-init's JSON with Infinity in it, as Python's json.loads does", async () => {
  const dir = path.join(FIXTURES, "float-past-range", "expected");
  const input = readFileSync(path.join(dir, "cloud-init-json.json"), "utf8");
  assert.match(input, /-Infinity/);
  const run = await runCli(["convert", path.join(dir, "cloud-init-json.json")]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, readFileSync(path.join(dir, "json.json"), "utf8"));
  const bad = await runCli(["convert", "-"], { input: '{"status": Inf}' });
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /Cannot convert "<stdin>": not valid JSON/);
});

test("bootstatus convert reads stdin and prints yaml on request", async () => {
  const input = readFileSync(path.join(SAMPLES, "debian-22.4-error-running.json"), "utf8");
  const run = await runCli(["convert", "--format", "yaml"], { input });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^status:\n {2}status: error\n {2}extended_status: error - done\n/);
});

test("bootstatus convert exits 1 with a clear message on input that is not cloud-init's JSON", async () => {
  const run = await runCli(["convert", "-"], { input: '{"status": 3}' });
  assert.equal(run.code, 1);
  assert.match(run.stderr, /Cannot convert: "status" must be a string, got 3/);
  const missing = await runCli(["convert", "/nonexistent/status.json"]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /Cannot convert "\/nonexistent\/status.json": ENOENT/);
});
