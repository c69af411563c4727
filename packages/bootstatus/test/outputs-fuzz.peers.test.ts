import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import type { PushgatewayGroups, Report } from "./support/exposition-properties.js";
import { expectedSamples, groupSamples, normalized } from "./support/exposition-properties.js";
import { TreeGenerator, writeStateTree } from "./support/random-state-tree.js";
import { FIXTURES } from "./support/run-cli.js";
import { runMain } from "./support/run-main.js";
import { startServer } from "./support/start-server.js";

// The peers half of outputs-fuzz.test.ts: over the random state trees, `--format prometheus` passes Debian's
// `promtool check metrics` (Prometheus's own text parser and linter), and `report --to pushgateway://` is taken
// by Debian's prometheus-pushgateway, which serves back exactly the samples the report stands for (its
// /api/v1/metrics), and whose whole /metrics after every push passes promtool again. A 4xx of the real
// Pushgateway (a grouping key it refuses) stops at once with exit 4. FUZZ_SEED / FUZZ_CASES change the run.

const SEED = Number(process.env.FUZZ_SEED ?? 20261128);
const CASES = Number(process.env.FUZZ_CASES ?? 60);
const PROMTOOL = "/usr/bin/promtool";
const PUSHGATEWAY = "/usr/bin/prometheus-pushgateway";

const work = mkdtempSync(path.join(tmpdir(), "bootstatus-fuzz-outputs-peers-"));
const stops: (() => void)[] = [];
after(() => {
  for (const stop of stops) stop();
  rmSync(work, { recursive: true, force: true });
});

/** A free 127.0.0.1 port (bound once and released): Debian's Pushgateway logs the port it was given. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** promtool's verdict on an exposition: "" when it parses and lints clean. */
function promtool(text: string): string {
  const r = spawnSync(PROMTOOL, ["check", "metrics"], { input: text, encoding: "utf8", timeout: 20_000 });
  return r.status === 0 ? "" : `exit ${r.status}: ${r.stdout}${r.stderr}`;
}

test(`--format prometheus passes promtool, and Debian's Pushgateway serves back each pushed report, on ${CASES} random trees (seed ${SEED})`, async () => {
  assert.ok(existsSync(PROMTOOL), `${PROMTOOL} is missing (apt-get install prometheus)`);
  assert.ok(existsSync(PUSHGATEWAY), `${PUSHGATEWAY} is missing (apt-get install prometheus-pushgateway)`);
  const port = await freePort();
  const server = startServer(
    PUSHGATEWAY,
    [
      `--web.listen-address=127.0.0.1:${port}`,
      // In memory only: Debian builds it with /var/lib/prometheus/pushgateway.data as the default, a file every
      // run on the machine would share (and fill).
      "--persistence.file=",
    ],
    /(Listening on)|(listen_address)/,
  );
  stops.push(() => server.child.kill());
  await server.ready;
  const gateway = `http://127.0.0.1:${port}`;
  const gen = new TreeGenerator(SEED);
  const findings: string[] = [];
  let pushed = 0;
  for (let i = 0; i < CASES; i++) {
    const tree = gen.next();
    const dir = path.join(work, `c${i}`);
    const root = path.join(dir, "root");
    const systemctlDir = path.join(dir, "systemctl");
    writeStateTree(tree, root, systemctlDir);
    const found = (what: string) => findings.push(`tree ${i} (seed ${SEED}): ${what}`);
    const run = (args: string[]) =>
      runMain(["--root", root, "--quiet", ...args], { env: tree.env, systemctlDir });
    const json = await run(["--format", "json"]);
    const report = JSON.parse(json.stdout) as Report;
    const prom = await run(["--format", "prometheus"]);
    const verdict = promtool(prom.stdout);
    if (verdict !== "") found(`promtool: ${verdict}\n${prom.stdout}`);
    if (/(not started|running)$/.test(report.status.extended_status) || tree.traits.systemctlFails) continue;
    const sent = await run([
      "report",
      "--to",
      `pushgateway://127.0.0.1:${port}/job/fuzz/instance/t${i}`,
      "--timeout",
      "10",
    ]);
    pushed++;
    if (sent.code !== json.code)
      found(`report --to pushgateway: exit ${sent.code}, not ${json.code}: ${sent.stderr}`);
    const api = (await (
      await fetch(`${gateway}/api/v1/metrics`, { signal: AbortSignal.timeout(10_000) })
    ).json()) as PushgatewayGroups;
    const served = groupSamples(api, { job: "fuzz", instance: `t${i}` });
    const want = expectedSamples(report);
    if (served === undefined) found("the Pushgateway has no group for the push");
    else {
      const got = served.filter((s) => s.name !== "bootstatus_last_update_timestamp_seconds");
      if (JSON.stringify(normalized(got)) !== JSON.stringify(normalized(want)))
        found(
          `the Pushgateway serves ${JSON.stringify(normalized(got))}, not ${JSON.stringify(normalized(want))}`,
        );
    }
    rmSync(dir, { recursive: true, force: true });
  }
  const scraped = await (await fetch(`${gateway}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
  // Only our families: on the shared machine another test may push to a port it also found free.
  const ours = scraped
    .split("\n")
    .filter((line) => /^(# (HELP|TYPE) )?bootstatus_/.test(line))
    .join("\n");
  const verdict = promtool(`${ours}\n`);
  if (verdict !== "")
    findings.push(`promtool on the Pushgateway's /metrics after ${pushed} pushes: ${verdict}`);
  assert.ok(pushed > CASES / 3, `only ${pushed} trees were settled enough to push`);
  assert.deepEqual(findings, []);

  // A job name with a `/`, base64-encoded as the Pushgateway's API takes it.
  const slashed = await runMain(
    [
      "report",
      "--to",
      `pushgateway://127.0.0.1:${port}/job@base64/${Buffer.from("boot/vm1").toString("base64url")}`,
      "--timeout",
      "20",
      "--root",
      path.join(FIXTURES, "done-nocloud", "root"),
    ],
    { env: {}, systemctlDir: path.join(work, "no-answers") },
  );
  assert.equal(slashed.code, 0, slashed.stderr);
  const groups = (await (
    await fetch(`${gateway}/api/v1/metrics`, { signal: AbortSignal.timeout(10_000) })
  ).json()) as PushgatewayGroups;
  assert.ok(
    groups.data.some((g) => g.labels.job === "boot/vm1"),
    "the Pushgateway holds job boot/vm1",
  );

  // A grouping key the Pushgateway refuses (a label name it cannot take): 400, not retried, exit 4.
  const refused = await runMain(
    [
      "report",
      "--to",
      `pushgateway://127.0.0.1:${port}/job/fuzz/bad-label/x`,
      "--timeout",
      "20",
      "--root",
      path.join(FIXTURES, "done-nocloud", "root"),
    ],
    // No answer files: the fake systemctl reports healthy units.
    { env: {}, systemctlDir: path.join(work, "no-answers") },
  );
  assert.equal(refused.code, 4, refused.stderr);
  assert.match(refused.stderr, /\(attempt 1\): HTTP 400/);
});
