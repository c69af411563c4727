import assert from "node:assert/strict";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { comparePythonStrings } from "../src/python/repr.js";
import { fixtureCases } from "./support/fixture-cases.js";
import { randomScalar } from "./support/random-scalar.js";
import { COMPUTED_KEYS, mulberry32 } from "./support/random-state-tree.js";
import { runMain } from "./support/run-main.js";

// Differential fuzzing of the output encoders against Python's own: seeded random strings (test/support/
// random-scalar.ts) as datasource, stage value, stage names, errors, recoverable levels and their messages, and
// JSON values of every type in other v1 entries and stage fields (LITERALS below), in status.json files written as cloud-init writes them (atomic_helper.json_dumps: indent 1, sorted keys, every
// non-ASCII character and lone surrogate as a \u escape) or as raw UTF-8. Each tree (sysvinit, so no systemctl)
// goes through bootstatus's main() and through test/oracle/encoders-server.py, which computes the details with
// status.py's functions and prints them with the very calls cloud-init 26.x makes. Compared: `--format
// cloud-init-json` with json.dumps(indent=2, sort_keys=True, separators=(",", ": ")) byte for byte, tabular and
// `--long` with print_status's template, report v1 `--format json` with json.dumps(indent=2, ensure_ascii=False),
// and report v1 `--format yaml` read back by PyYAML's safe_load, which must give the JSON report (also with
// `--explain`, the same strings written into the logs it reads).
//
// Documented differences skipped (package README "Differences that remain"): a lone surrogate in the JSON report is
// a \u escape here where Python's ensure_ascii=False keeps it raw (its print then raises); integer-like level
// names (JS key order) are not generated. FUZZ_SEED / FUZZ_CASES change the run; needs python3 and python3-yaml.

const SEED = Number(process.env.FUZZ_SEED ?? 20261128);
const CASES = Number(process.env.FUZZ_CASES ?? 300);
const SERVER = fileURLToPath(new URL("../../test/oracle/encoders-server.py", import.meta.url));
const TIMES = [null, 0.5, 12.25, 124.567, 86399.5, 1710355584.3603137];
/** v1 keys that are not stages, and the computed keys a v1 key would shadow (status-fuzz's class). */
const NOT_STAGES = new Set(["datasource", "stage", ...COMPUTED_KEYS]);

interface PythonAnswer {
  cloud_init_json?: string;
  tabular?: string;
  tabular_long?: string;
  report_json?: string;
  json_loaded: unknown;
  yaml_loaded?: unknown;
  yaml_error?: string;
  exception?: string;
}

/** test/oracle/encoders-server.py: one request at a time, a deadline on each. */
class PythonEncoders {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly lines: AsyncIterator<string>;
  constructor() {
    this.child = spawn("/usr/bin/python3", [SERVER], { env: { PATH: "/usr/bin:/bin", LANG: "C.UTF-8" } });
    this.child.stderr.on("data", (d) => process.stderr.write(`encoders-server: ${d}`));
    this.lines = createInterface({ input: this.child.stdout })[Symbol.asyncIterator]();
  }
  async ask(request: Record<string, unknown>): Promise<PythonAnswer> {
    this.child.stdin.write(`${JSON.stringify(request)}\n`);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("encoders-server gave no answer in 10 s")), 10_000);
    });
    try {
      const next = await Promise.race([this.lines.next(), deadline]);
      assert.ok(!next.done, "encoders-server ended");
      return JSON.parse(next.value) as PythonAnswer;
    } finally {
      clearTimeout(timer);
    }
  }
  stop(): void {
    this.child.kill();
  }
}

/** status.json as cloud-init's atomic_helper.json_dumps writes it (json.dumps indent=1, sort_keys, ensure_ascii). */
function asCloudInitWrites(value: unknown, indent = ""): string {
  if (value === null || typeof value !== "object") {
    return JSON.stringify(value).replace(
      /[\u007f-\uffff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
    );
  }
  const inner = `${indent} `;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[\n${value.map((v) => inner + asCloudInitWrites(v, inner)).join(",\n")}\n${indent}]`;
  }
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (entries.length === 0) return "{}";
  const items = entries.map(([k, v]) => `${inner}${asCloudInitWrites(k)}: ${asCloudInitWrites(v, inner)}`);
  return `{\n${items.join(",\n")}\n${indent}}`;
}

/**
 * JSON literals both Python's json and JSON.parse read, which cloud-init-json must print as json.dumps does: ints and
 * floats apart, -0, exponents, subnormals, past the float range (Infinity). Ints past 2^53 are class b (README).
 */
const LITERALS = [
  ...["0", "-0", "0.0", "-0.0", "1", "-1", "1.0", "1.5", "1e5", "1E+2", "0.1e1", "1e-7", "1.0e+16", "1e16"],
  ...[
    "9007199254740992",
    "1E400",
    "-1e400",
    "5e-324",
    "2.5e-324",
    "1.7976931348623157e308",
    "0.30000000000000004",
  ],
  ...[
    "1e21",
    "123456789.123456789",
    "true",
    "false",
    "null",
    "[]",
    "{}",
    '[1, 2.0, "x", {"__proto__": -0.0}]',
  ],
];
/** A string that stands for the raw JSON literal after it, written into status.json as that literal. */
const RAW = "\u0000raw:";
const STAGE_FIELDS = new Set(["errors", "recoverable_errors", "start", "finished"]);

/** A random JSON value of any type, hostile keys and literals included. */
function randomValue(rand: () => number, depth = 0): unknown {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
  const r = rand();
  if (r < 0.5 || depth > 2) return `${RAW}${pick(LITERALS)}\u0000`;
  if (r < 0.7) return randomScalar(rand);
  if (r < 0.85) return Array.from({ length: Math.floor(rand() * 4) }, () => randomValue(rand, depth + 1));
  const object: Record<string, unknown> = Object.create(null);
  for (let n = Math.floor(rand() * 4); n > 0; n--) {
    const key = rand() < 0.3 ? pick(["__proto__", "constructor", "toString", "10", ""]) : randomScalar(rand);
    if (!STAGE_FIELDS.has(key)) object[key] = randomValue(rand, depth + 1);
  }
  return object;
}

/** The JSON text with each RAW string replaced by its literal. */
function withRawLiterals(json: string): string {
  return json.replace(/"\\u0000raw:(?:[^"\\]|\\.)*?\\u0000"/g, (m) =>
    (JSON.parse(m) as string).slice(RAW.length, -1),
  );
}

/** One random v1: a datasource and stage value, one to three stages with errors and recoverable levels. */
function randomV1(rand: () => number): Record<string, unknown> {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
  const strings = (max: number) =>
    Array.from({ length: Math.floor(rand() * (max + 1)) }, () => randomScalar(rand));
  const v1: Record<string, unknown> = Object.create(null);
  const roll = rand();
  if (roll < 0.7) v1.datasource = randomScalar(rand);
  else if (roll < 0.85) v1.datasource = null;
  v1.stage = rand() < 0.5 ? randomScalar(rand) : null;
  const stages = 1 + Math.floor(rand() * 3);
  for (let s = 0; s < stages; s++) {
    const name =
      rand() < 0.3 ? pick(["init-local", "init", "modules-config", "modules-final"]) : randomScalar(rand);
    if (NOT_STAGES.has(name) || Object.hasOwn(v1, name)) continue;
    const recoverable: Record<string, string[]> = Object.create(null);
    for (let l = Math.floor(rand() * 3); l > 0; l--) {
      const level = rand() < 0.3 ? pick(["WARNING", "DEPRECATED", "ERROR", "CRITICAL"]) : randomScalar(rand);
      // Class b: integer-like level names print in JS key order (package README).
      if (/^(0|[1-9][0-9]*)$/.test(level)) continue;
      recoverable[level] = strings(3);
    }
    v1[name] = {
      start: pick(TIMES),
      finished: pick(TIMES),
      errors: rand() < 0.6 ? [] : strings(3),
      recoverable_errors: recoverable,
      ...(rand() < 0.3 ? { extra: randomValue(rand) } : {}),
    };
  }
  // Other v1 entries, which cloud-init-json copies to the top level (`**v1`); an object among them is a stage.
  for (let n = rand() < 0.3 ? 1 + Math.floor(rand() * 2) : 0; n > 0; n--) {
    const key = rand() < 0.3 ? pick(["__proto__", "constructor", "toString", "blah"]) : randomScalar(rand);
    if (!NOT_STAGES.has(key) && !Object.hasOwn(v1, key)) v1[key] = randomValue(rand);
  }
  return v1;
}

/** Levels first seen over the stages in key order, each stage's levels in key order: all cloud-init's JSON tells. */
function levelOrderOfSortedJson(v1: Record<string, unknown>): string[] {
  const order: string[] = [];
  for (const key of Object.keys(v1).sort(comparePythonStrings)) {
    const stage = v1[key];
    if (stage === null || typeof stage !== "object" || Array.isArray(stage)) continue;
    const levels = (stage as { recoverable_errors?: Record<string, unknown> }).recoverable_errors ?? {};
    for (const level of Object.keys(levels).sort(comparePythonStrings))
      if (!order.includes(level)) order.push(level);
  }
  return order;
}

/** cloud-init.log and cloud-init-output.log with random strings where --explain takes its texts from. */
function writeRandomLogs(root: string, rand: () => number): void {
  const line = () => randomScalar(rand).replace(/[\r\n]/g, " ");
  const log = [
    "2026-11-28 08:43:10,001 - util.py[DEBUG]: Cloud-init v. 26.1 running 'init-local' at Sat, 28 Nov 2026 08:43:10 +0000. Up 1.5 seconds.",
    "2026-11-28 08:43:10,002 - handlers.py[DEBUG]: start: init-local: searching for local data",
    `2026-11-28 08:43:10,003 - handlers.py[DEBUG]: start: init-local/config-${line()}: running it`,
    `2026-11-28 08:43:10,004 - util.py[WARNING]: ${line()}`,
    `2026-11-28 08:43:10,005 - modules.py[WARNING]: Failed to run module ${line()}`,
    "Traceback (most recent call last):",
    '  File "x.py", line 1, in <module>',
    `RuntimeError: ${line()}`,
    `2026-11-28 08:43:10,006 - handlers.py[DEBUG]: finish: init-local/config-${line()}: FAIL: ${line()}`,
    "2026-11-28 08:43:10,007 - handlers.py[DEBUG]: finish: init-local: SUCCESS: searching for local data",
  ];
  mkdirSync(path.join(root, "var", "log"), { recursive: true });
  writeFileSync(path.join(root, "var", "log", "cloud-init.log"), `${log.join("\n")}\n`);
  writeFileSync(path.join(root, "var", "log", "cloud-init-output.log"), `${line()}\n${line()}\n`);
}

/** Python's json.dumps(ensure_ascii=False) keeps a lone surrogate raw; JSON.stringify writes its \u escape. */
function escapeLoneSurrogates(text: string): string {
  return text.replace(
    /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16)}`,
  );
}

const work = mkdtempSync(path.join(tmpdir(), "bootstatus-fuzz-encoders-"));
const python = new PythonEncoders();
after(() => {
  python.stop();
  rmSync(work, { recursive: true, force: true });
});

test(`bootstatus writes report values as Python's json and PyYAML do on ${CASES} random trees (seed ${SEED})`, async () => {
  const rand = mulberry32(SEED);
  const findings: string[] = [];
  const systemctlDir = path.join(work, "systemctl");
  mkdirSync(systemctlDir);
  for (let i = 0; i < CASES && findings.length < 20; i++) {
    const root = path.join(work, `c${i}`);
    const runDir = path.join(root, "run", "cloud-init");
    mkdirSync(runDir, { recursive: true });
    const v1 = randomV1(rand);
    const statusJson = path.join(runDir, "status.json");
    const file = { v1 };
    writeFileSync(
      statusJson,
      withRawLiterals(rand() < 0.5 ? asCloudInitWrites(file) : JSON.stringify(file, null, 1)),
    );
    const resultJson = rand() < 0.7;
    if (resultJson)
      writeFileSync(path.join(runDir, "result.json"), '{"v1": {"datasource": null, "errors": []}}');
    const run = async (args: string[]) =>
      (await runMain(["--root", root, "--quiet", ...args], { env: {}, systemctlDir })).stdout;
    const ours = {
      cloudInitJson: await run(["--format", "cloud-init-json"]),
      tabular: await run([]),
      tabularLong: await run(["--long"]),
      json: await run(["--format", "json"]),
      yaml: await run(["--format", "yaml"]),
    };
    const py = await python.ask({
      status_json: statusJson,
      result_json: resultJson,
      yaml: ours.yaml,
      json: ours.json,
    });
    const found = (what: string, a: unknown, b: unknown) =>
      findings.push(
        `case ${i} (seed ${SEED}) ${what}:\n  ours   ${JSON.stringify(a)}\n  python ${JSON.stringify(b)}\n  v1 ${JSON.stringify(v1)}`,
      );
    if (py.exception !== undefined) {
      found("encoders-server raised", "", py.exception);
      continue;
    }
    // Class b (README): letters newer than Python 3.11's Unicode 14 lowercase in the datasource key here only.
    const newerLetters = /[\u1c89\ua7cb-\ua7dc\u{10d50}-\u{10d65}\u{16ea0}-\u{16eb8}]/u;
    if (ours.cloudInitJson !== py.cloud_init_json && !newerLetters.test(String(v1.datasource)))
      found("cloud-init-json", ours.cloudInitJson, py.cloud_init_json);
    if (ours.tabular !== py.tabular) found("tabular", ours.tabular, py.tabular);
    if (ours.tabularLong !== py.tabular_long) found("--long", ours.tabularLong, py.tabular_long);
    const reportJson = escapeLoneSurrogates(py.report_json ?? "");
    if (ours.json !== reportJson) found("report v1 json", ours.json, reportJson);
    // convert reads what cloud-init printed (Python's bytes) back into the report ours prints from the tree, but for
    // the order of levels within a stage, which cloud-init's sorted JSON no longer holds (class b, README).
    const converted = await runMain(["convert", "-"], {
      env: {},
      systemctlDir,
      input: py.cloud_init_json ?? "",
    });
    const convertible = JSON.parse(ours.json) as { recoverable_errors: { level: string }[] };
    const order = levelOrderOfSortedJson(v1);
    convertible.recoverable_errors.sort((a, b) => order.indexOf(a.level) - order.indexOf(b.level));
    if (converted.stdout !== `${JSON.stringify(convertible, null, 2)}\n`)
      found("convert of cloud-init's JSON", converted, convertible);
    if (py.yaml_error !== undefined) found("PyYAML refuses --format yaml", ours.yaml, py.yaml_error);
    else if (!isDeepStrictEqual(py.yaml_loaded, py.json_loaded))
      found("PyYAML reads --format yaml otherwise than the json report", ours.yaml, py.yaml_loaded);
    if (rand() < 0.3) {
      // The same strings in the logs --explain reads, so they reach report v1's diagnostics.
      writeRandomLogs(root, rand);
      const explained = {
        yaml: await run(["--format", "yaml", "--explain"]),
        json: await run(["--format", "json", "--explain"]),
      };
      const back = await python.ask(explained);
      if (back.yaml_error !== undefined)
        found("PyYAML refuses --format yaml --explain", explained.yaml, back.yaml_error);
      else if (!isDeepStrictEqual(back.yaml_loaded, back.json_loaded))
        found(
          "PyYAML reads --format yaml --explain otherwise than its json",
          explained.yaml,
          back.yaml_loaded,
        );
    }
    rmSync(root, { recursive: true, force: true });
  }
  assert.deepEqual(findings, []);
});

test("PyYAML reads every fixture's expected --format yaml as its expected --format json", async () => {
  const cases = fixtureCases();
  assert.ok(cases.some((c) => c.name === "yaml-1-1-strings"));
  for (const c of cases) {
    const py = await python.ask({ yaml: c.expected("yaml.yaml"), json: c.expected("json.json") });
    assert.equal(py.yaml_error, undefined, c.name);
    assert.deepStrictEqual(py.yaml_loaded, py.json_loaded, c.name);
  }
});
