import assert from "node:assert/strict";
import { createHmac, timingSafeEqual } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import Ajv2020Module from "ajv/dist/2020.js";
import { parse as parseYaml } from "yaml";
import type { Report } from "./support/exposition-properties.js";
import { checkExposition, expectedSamples, normalized } from "./support/exposition-properties.js";
import { randomCloudInitLogs } from "./support/random-cloud-init-log.js";
import { TreeGenerator, writeStateTree } from "./support/random-state-tree.js";
import { runMain } from "./support/run-main.js";

// Property fuzzing of our opt-in outputs over the random state trees of status-fuzz.test.ts: `--format json`
// validates against the shipped schema (ajv, draft 2020-12); `--format prometheus` has HELP/TYPE once per family,
// escaped label values, no series twice and the samples the report stands for; `--explain` (over a random
// cloud-init.log) and `--explain --strict` answer in every format with the README's exit code for the status they
// print; `report --to http://…` (a local server that may answer 500, close the connection or answer 4xx first)
// posts exactly what `--format json` printed, signed as the README says, and exits with the boot's code once
// delivered, 4 at once on a 4xx. The peers half (promtool, Debian's Pushgateway) is outputs-fuzz.peers.test.ts.
// FUZZ_SEED / FUZZ_CASES change the run.

const SEED = Number(process.env.FUZZ_SEED ?? 20261128);
const CASES = Number(process.env.FUZZ_CASES ?? 60);
const SECRET = "fuzz-secret-ü";
const SCHEMA = JSON.parse(
  readFileSync(fileURLToPath(new URL("../../schema/boot-status-report-v1.json", import.meta.url)), "utf8"),
) as Record<string, unknown>;
const Ajv2020 = Ajv2020Module as unknown as typeof Ajv2020Module.default;
const validate = new Ajv2020({ allErrors: true }).compile(SCHEMA);

/** What the local receiver does with the next requests; then it answers 200. */
type Answer = 200 | 500 | 404 | 408 | "close" | "hang";
const plan: Answer[] = [];
const received: { method: string; url: string; headers: IncomingMessage["headers"]; body: Buffer }[] = [];
const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    received.push({
      method: req.method ?? "",
      url: req.url ?? "",
      headers: req.headers,
      body: Buffer.concat(chunks),
    });
    const answer = plan.shift() ?? 200;
    if (answer === "hang") return; // never answers (closeAllConnections in `after` ends it)
    if (answer === "close") req.socket.destroy();
    else
      res
        .writeHead(answer, { "content-type": "text/plain" })
        .end(answer === 200 ? "ok\n" : `nope ${answer}\n`);
  });
});
let base = "";
const work = mkdtempSync(path.join(tmpdir(), "bootstatus-fuzz-outputs-"));
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
  rmSync(work, { recursive: true, force: true });
});

/**
 * README "Exit codes", read off the report printed: an error (status or a listed error) 1, recoverable errors only
 * 2 (0 with --allow-degraded; also under `disabled`, whose extended_status does not say degraded), else 0.
 */
function codeFor(report: Report, allowDegraded = false): number {
  if (report.status.status === "error" || report.errors.length > 0) return 1;
  if (report.recoverable_errors.length > 0) return allowDegraded ? 0 : 2;
  return 0;
}

function signed(body: Buffer, header: string | string[] | undefined): boolean {
  const want = Buffer.from(`sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`);
  const got = Buffer.from(String(header ?? ""));
  return got.length === want.length && timingSafeEqual(got, want);
}

test(`report v1, prometheus, --explain and report --to hold their properties on ${CASES} random trees (seed ${SEED})`, async () => {
  const gen = new TreeGenerator(SEED);
  const findings: string[] = [];
  for (let i = 0; i < CASES; i++) {
    const tree = gen.next();
    const dir = path.join(work, `c${i}`);
    const root = path.join(dir, "root");
    const systemctlDir = path.join(dir, "systemctl");
    writeStateTree(tree, root, systemctlDir);
    const found = (what: string) => findings.push(`tree ${i} (seed ${SEED}): ${what}`);
    const env = { ...tree.env, BOOTSTATUS_REPORT_SECRET: SECRET };
    const run = (args: string[]) => runMain(["--root", root, ...args], { env, systemctlDir });
    const crashed = (r: { code: number; stderr: string }) => /\n {4}at /.test(r.stderr) || r.code < 0;

    const json = await run(["--quiet", "--format", "json"]);
    const report = JSON.parse(json.stdout) as Report;
    if (!validate(report)) found(`--format json fails the schema: ${JSON.stringify(validate.errors)}`);
    if (json.code !== codeFor(report))
      found(`--format json exits ${json.code} for ${report.status.extended_status}`);

    const prom = await run(["--quiet", "--format", "prometheus"]);
    const exposition = checkExposition(prom.stdout);
    for (const p of exposition.problems) found(`prometheus: ${p}`);
    const withoutTime = exposition.samples.filter(
      (s) => s.name !== "bootstatus_last_update_timestamp_seconds",
    );
    if (JSON.stringify(normalized(withoutTime)) !== JSON.stringify(normalized(expectedSamples(report))))
      found(`prometheus samples ${JSON.stringify(withoutTime)} are not the report's`);
    if (prom.code !== json.code) found(`prometheus exits ${prom.code}, json ${json.code}`);

    // --explain over a random log: every format answers, and the code is the table's for the status printed.
    const logs = randomCloudInitLogs(SEED + i);
    mkdirSync(path.join(root, "var/log"), { recursive: true });
    if (i % 7 !== 0) writeFileSync(path.join(root, "var/log/cloud-init.log"), logs.log);
    if (i % 5 !== 0) writeFileSync(path.join(root, "var/log/cloud-init-output.log"), logs.output);
    let explained = "";
    for (const extra of [[], ["--strict"]]) {
      const ej = await run(["--quiet", "--explain", ...extra, "--format", "json"]);
      if (crashed(ej)) {
        found(`--explain ${extra} --format json: ${JSON.stringify(ej)}`);
        continue;
      }
      const er = JSON.parse(ej.stdout) as Report;
      if (extra.length === 0) explained = ej.stdout;
      if (!validate(er))
        found(`--explain ${extra} json fails the schema: ${JSON.stringify(validate.errors)}`);
      if (ej.code !== codeFor(er))
        found(`--explain ${extra} exits ${ej.code} for ${er.status.extended_status}`);
      for (const format of [[], ["--long"], ["--format", "yaml"], ["--allow-degraded"]]) {
        const r = await run(["--explain", ...extra, ...format]);
        const want = codeFor(er, format[0] === "--allow-degraded");
        if (crashed(r) || r.code !== want)
          found(`--explain ${extra} ${format}: exit ${r.code}, not ${want}: ${r.stderr}`);
        if (format[0] === "--format") {
          try {
            assert.deepEqual(parseYaml(r.stdout), er);
          } catch {
            found(`--explain ${extra} yaml is not its json`);
          }
        }
      }
    }

    // report --to: only on a settled boot (a running one waits for its --timeout).
    if (!/(not started|running)$/.test(report.status.extended_status) && !tree.traits.systemctlFails) {
      const answers = [[], [500], ["close"], [408, 500], [404]][i % 5] as Answer[];
      const withExplain = i % 2 === 0;
      plan.splice(0, plan.length, ...answers);
      received.length = 0;
      const allowDegraded = i % 3 === 0;
      const sent = await run([
        "report",
        "--to",
        `${base}/hooks/t${i}?x=1`,
        "--timeout",
        "10",
        ...(withExplain ? ["--explain"] : []),
        ...(allowDegraded ? ["--allow-degraded"] : []),
      ]);
      const refused = answers.includes(404);
      const want = refused ? 4 : codeFor(report, allowDegraded);
      if (sent.code !== want)
        found(`report --to (${answers}): exit ${sent.code}, not ${want}: ${sent.stderr}`);
      if (received.length !== answers.length + (refused ? 0 : 1))
        found(`report --to (${answers}): ${received.length} requests`);
      for (const r of received) {
        if (r.method !== "POST" || r.url !== `/hooks/t${i}?x=1`) found(`report --to: ${r.method} ${r.url}`);
        if (r.body.toString("utf8") !== (withExplain ? explained : json.stdout))
          found(
            `report --to posted ${JSON.stringify(r.body.toString("utf8").slice(0, 200))}, not --format json`,
          );
        if (!signed(r.body, r.headers["x-hub-signature-256"]))
          found("report --to: the signature does not verify");
        if (r.headers["content-type"] !== "application/json")
          found(`content-type ${r.headers["content-type"]}`);
      }
      if (!refused && !new RegExp(`HTTP 200 \\(attempt ${answers.length + 1}\\)\\n$`).test(sent.stdout))
        found(`report --to: ${JSON.stringify(sent.stdout)}`);
    }
    rmSync(dir, { recursive: true, force: true });
  }
  assert.deepEqual(findings, []);
});

test("report --to: a receiver that keeps failing (500, 408, a closed connection, no answer) ends in exit 4 by --timeout; a 4xx at once", async () => {
  // The first settled tree of the seed (a running one would spend the --timeout waiting).
  const gen = new TreeGenerator(SEED);
  const dir = path.join(work, "deadline");
  let env: Record<string, string> = {};
  for (let settled = false; !settled; ) {
    const tree = gen.next();
    rmSync(dir, { recursive: true, force: true });
    writeStateTree(tree, path.join(dir, "root"), path.join(dir, "systemctl"));
    env = { ...tree.env, BOOTSTATUS_REPORT_SECRET: SECRET };
    const json = await runMain(["--root", path.join(dir, "root"), "--format", "json"], {
      env,
      systemctlDir: path.join(dir, "systemctl"),
    });
    settled = !tree.traits.systemctlFails && !/(not started|running)"/.test(json.stdout);
  }
  const cases: [Answer, string][] = [
    [500, "1"],
    ["close", "2"],
    [408, "1.5"],
    ["hang", "1.5"],
    [404, "20"],
  ];
  for (const [answer, timeout] of cases) {
    plan.splice(0, plan.length, ...Array<Answer>(100).fill(answer));
    received.length = 0;
    const started = Date.now();
    const r = await runMain(
      ["report", "--to", `${base}/hooks/deadline`, "--timeout", timeout, "--root", path.join(dir, "root")],
      { env, systemctlDir: path.join(dir, "systemctl") },
    );
    const took = Date.now() - started;
    assert.equal(r.code, 4, `${answer}: ${r.stderr}`);
    assert.match(
      r.stderr,
      /cannot send the report to http:\/\/127\.0\.0\.1:\d+\/hooks\/deadline \(attempt \d+\)/,
    );
    if (answer === 404) {
      assert.equal(received.length, 1, "a 4xx is not retried");
      assert.match(r.stderr, /\(attempt 1\): HTTP 404: nope 404\n/);
    } else {
      // One that never answers takes the whole --timeout in its one attempt.
      assert.ok(received.length >= (answer === "hang" ? 1 : 2), `${answer}: ${received.length} attempts`);
      // A deadline, not a speed figure: the last attempt may take MIN_ATTEMPT_MS (1 s) past it; 3 s of slack for
      // the shared machine.
      assert.ok(took < Number(timeout) * 1000 + 4000, `${answer}: ended ${took} ms after the start`);
    }
  }
  plan.length = 0;
});

test("report --to on a boot still running: --timeout sends the running report and exits 3 (README 'Exit codes')", async () => {
  const gen = new TreeGenerator(SEED);
  const dir = path.join(work, "running");
  for (let i = 0; i < 200; i++) {
    const tree = gen.next();
    rmSync(dir, { recursive: true, force: true });
    writeStateTree(tree, path.join(dir, "root"), path.join(dir, "systemctl"));
    const env = { ...tree.env, BOOTSTATUS_REPORT_SECRET: SECRET };
    const run = (args: string[]) =>
      runMain(["--root", path.join(dir, "root"), ...args], {
        env,
        systemctlDir: path.join(dir, "systemctl"),
      });
    const json = await run(["--quiet", "--format", "json"]);
    const report = JSON.parse(json.stdout) as Report;
    if (tree.traits.systemctlFails || !/(not started|running)$/.test(report.status.extended_status)) continue;
    plan.length = 0;
    received.length = 0;
    const sent = await run(["report", "--to", `${base}/hooks/running`, "--timeout", "1"]);
    assert.equal(sent.code, 3, sent.stderr);
    assert.equal(received.length, 1);
    assert.equal(received[0]?.body.toString("utf8"), json.stdout);
    assert.ok(signed(received[0]?.body ?? Buffer.alloc(0), received[0]?.headers["x-hub-signature-256"]));
    return;
  }
  assert.fail(`no running tree among 200 of seed ${SEED}`);
});
