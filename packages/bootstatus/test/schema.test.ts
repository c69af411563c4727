import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { parse } from "yaml";
import { validateReport } from "../src/validate.js";
import { FIXTURES, runCli } from "./support/run-cli.js";

const cases = readdirSync(FIXTURES, { withFileTypes: true })
  .filter((d) => existsSync(path.join(FIXTURES, d.name, "case.json")))
  .map((d) => d.name);

test("every v1 output of every fixture (json and yaml) is valid against the schema", () => {
  for (const name of cases) {
    const json = JSON.parse(readFileSync(path.join(FIXTURES, name, "expected/json.json"), "utf8"));
    assert.deepEqual(validateReport(json), [], `${name} json`);
    const yaml = parse(readFileSync(path.join(FIXTURES, name, "expected/yaml.yaml"), "utf8"));
    assert.deepEqual(yaml, json, `${name}: yaml and json carry the same report`);
  }
});

test("validateReport() names each violation by JSON pointer", () => {
  const violations = validateReport({
    status: {
      status: "finished",
      extended_status: "done",
      boot_status_code: "unknown",
      last_update: 5,
      detail: null,
    },
    errors: [{ message: "x", extra: true }],
  });
  const pointers = violations.map((v) => v.pointer).sort();
  assert.deepEqual(pointers, ["/", "/errors/0", "/status/last_update", "/status/status"]);
  assert.match(
    violations.find((v) => v.pointer === "/status/status")?.message ?? "",
    /must be one of "not started"/,
  );
});

test("bootstatus schema prints the shipped draft 2020-12 schema with an $id", async () => {
  const run = await runCli(["schema"]);
  assert.equal(run.code, 0);
  const schema = JSON.parse(run.stdout);
  assert.equal(schema.$schema, "https://json-schema.org/draft/2020-12/schema");
  assert.match(schema.$id, /boot-status-report-v1\.json$/);
  assert.equal(schema.additionalProperties, false);
});

test("bootstatus validate accepts a report from a file and from stdin", async () => {
  const file = path.join(FIXTURES, "degraded-done/expected/json.json");
  const fromFile = await runCli(["validate", file]);
  assert.equal(fromFile.code, 0, fromFile.stderr);
  assert.match(fromFile.stdout, /valid boot status report v1/);
  const fromStdin = await runCli(["validate", "-"], { input: readFileSync(file, "utf8") });
  assert.equal(fromStdin.code, 0, fromStdin.stderr);
});

test("bootstatus validate exits 1 and prints pointers for an invalid report", async () => {
  const run = await runCli(["validate"], {
    input: '{"status": {}, "errors": [], "recoverable_errors": [{}]}',
  });
  assert.equal(run.code, 1);
  assert.match(run.stdout, /<stdin>: \/status: must have required property 'status'/);
  assert.match(run.stdout, /<stdin>: \/recoverable_errors\/0: must have required property 'level'/);
});

test("bootstatus validate exits 1 with a clear message on a file that is not JSON", async () => {
  const run = await runCli(["validate", "-"], { input: "status: done" });
  assert.equal(run.code, 1);
  assert.match(run.stderr, /Cannot validate "<stdin>": not valid JSON/);
});
