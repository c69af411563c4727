import assert from "node:assert/strict";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";
import type { StateTree } from "./support/random-state-tree.js";
import { TreeGenerator, writeStateTree } from "./support/random-state-tree.js";
import { runMain } from "./support/run-main.js";

// Differential fuzzing of `status` against the real cloud-init 26.x: random state trees (stages, times of every
// JSON type, errors and recoverable levels, datasource and stage values, status.json valid or not, result.json,
// markers, kernel command lines, KERNEL_CMDLINE, systemctl answers), each run through upstream status.py
// (test/oracle/status-server.py: chrooted into the tree, one Python start for all runs) and through bootstatus's
// main() in this process, in the formats and flags users use. Compared: stdout byte for byte (tabular, --long,
// -l, --wait where the boot is settled; cloud-init's --format json with ours cloud-init-json), report v1 of our
// json and yaml against cloud-init's JSON mapped as research §1.9 maps it, stderr (ours with --quiet) and the exit
// code. Trees the package README documents as read differently are checked for ours being an error report only.
//
// FUZZ_SEED and FUZZ_CASES change the run (defaults below keep it under a minute). The peer is upstream's
// status.py from a cloud-init checkout (CLOUD_INIT_SRC, as test/oracle/README.md): Debian ships only 22.4, whose
// status predates everything bootstatus matches (package README, "Tests that need a peer").

const SEED = Number(process.env.FUZZ_SEED ?? 20261128);
const CASES = Number(process.env.FUZZ_CASES ?? 150);
const SERVER = fileURLToPath(new URL("../../test/oracle/status-server.py", import.meta.url));
const CLOUD_INIT_SRC = process.env.CLOUD_INIT_SRC ?? "";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The fork server of test/oracle/status-server.py: one request at a time, a deadline on each. */
class Oracle {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly lines: AsyncIterator<string>;
  constructor() {
    this.child = spawn("/usr/bin/python3", [SERVER], {
      env: { PATH: "/usr/bin:/bin", LANG: "C.UTF-8", CLOUD_INIT_SRC },
    });
    this.child.stderr.on("data", (d) => process.stderr.write(`status-server: ${d}`));
    this.lines = createInterface({ input: this.child.stdout })[Symbol.asyncIterator]();
  }
  async run(root: string, args: string[], tree: StateTree): Promise<Run> {
    this.child.stdin.write(
      `${JSON.stringify({ root, args, env: tree.env, systemctl: tree.systemctl, timeout: 5 })}\n`,
    );
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("status-server gave no answer in 20 s")), 20_000);
    });
    try {
      const next = await Promise.race([this.lines.next(), deadline]);
      assert.ok(!next.done, "status-server ended");
      const answer = JSON.parse(next.value) as { code: number; stdout: string; stderr: string };
      return {
        code: answer.code,
        stdout: Buffer.from(answer.stdout, "base64").toString("utf8"),
        stderr: Buffer.from(answer.stderr, "base64").toString("utf8"),
      };
    } finally {
      clearTimeout(timer);
    }
  }
  stop(): void {
    this.child.kill();
  }
}

/** cloud-init's `--format json` as report v1 (research §1.9; ours maps `""` to null for last_update and detail). */
function asReportV1(cloudInit: Record<string, unknown>) {
  const recoverable = cloudInit.recoverable_errors as Record<string, string[]>;
  return {
    status: {
      status: cloudInit.status,
      extended_status: cloudInit.extended_status,
      boot_status_code: cloudInit.boot_status_code,
      last_update: cloudInit.last_update === "" ? null : cloudInit.last_update,
      detail: cloudInit.detail === "" ? null : cloudInit.detail,
    },
    errors: (cloudInit.errors as string[]).map((message) => ({ message })),
    recoverable_errors: Object.entries(recoverable).map(([level, messages]) => ({ level, messages })),
  };
}

/** Levels in cloud-init's JSON order (sort_keys: code points); report v1 keeps first-seen order, as --long. */
function byLevel<T extends { recoverable_errors: { level: string }[] }>(report: T): T {
  const cmp = (a: string, b: string) => {
    const x = [...a].map((c) => c.codePointAt(0) as number);
    const y = [...b].map((c) => c.codePointAt(0) as number);
    for (let i = 0; i < Math.min(x.length, y.length); i++)
      if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
    return x.length - y.length;
  };
  return {
    ...report,
    recoverable_errors: [...report.recoverable_errors].sort((a, b) => cmp(a.level, b.level)),
  };
}

const ROWS: { theirs: string[]; ours: string[] }[] = [
  { theirs: [], ours: [] },
  { theirs: ["--long"], ours: ["--long"] },
  { theirs: ["-l"], ours: ["-l"] },
  { theirs: ["--format", "tabular", "--long"], ours: ["--format", "tabular", "--long"] },
  { theirs: ["--format", "json"], ours: ["--format", "cloud-init-json"] },
];

/** stderr without cloud-init's log records (a timestamped line and its continuation lines, e.g. a YAML error). */
function withoutLogRecords(stderr: string): string {
  const kept: string[] = [];
  let inRecord = false;
  for (const line of stderr.split(/(?<=\n)/)) {
    if (/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} - \S+\[[A-Z]+\]: /.test(line)) inRecord = true;
    else if (line.startsWith("Failed to get status from systemd.")) inRecord = false;
    if (!inRecord) kept.push(line);
  }
  return kept.join("");
}

let oracle: Oracle | undefined;
const work = mkdtempSync(path.join(tmpdir(), "bootstatus-fuzz-"));
before(() => {
  // The oracle chroots into each tree; without a 26.x checkout or root there is nothing to compare with.
  const usable = CLOUD_INIT_SRC !== "" && existsSync(path.join(CLOUD_INIT_SRC, "cloudinit/cmd/status.py"));
  if (usable && process.getuid?.() === 0) oracle = new Oracle();
});
after(() => {
  oracle?.stop();
  rmSync(work, { recursive: true, force: true });
});

test(`bootstatus status matches cloud-init 26.x on ${CASES} random trees (seed ${SEED})`, async (t) => {
  if (oracle === undefined) {
    t.skip("needs root and CLOUD_INIT_SRC, a cloud-init 26.x checkout (test/oracle/README.md)");
    return;
  }
  const gen = new TreeGenerator(SEED);
  const findings: string[] = [];
  // What the trees reached, printed as a diagnostic so a generator change that stops reaching a state shows.
  const seen = new Map<string, number>();
  const count = (what: string) => seen.set(what, (seen.get(what) ?? 0) + 1);
  for (let i = 0; i < CASES; i++) {
    const tree = gen.next();
    const dir = path.join(work, `c${i}`);
    const root = path.join(dir, "root");
    const systemctlDir = path.join(dir, "systemctl");
    writeStateTree(tree, root, systemctlDir);
    const found = (row: string, what: string) => findings.push(`tree ${i} (seed ${SEED}) ${row}: ${what}`);
    const run = (args: string[]) =>
      runMain(["--root", root, "--quiet", ...args], { env: tree.env, systemctlDir });
    const theirsRuns = new Map<string, Run>();
    const theirsRun = async (args: string[]) => {
      const key = args.join(" ");
      let r = theirsRuns.get(key);
      if (r === undefined) {
        r = await (oracle as Oracle).run(root, args, tree);
        theirsRuns.set(key, r);
      }
      return r;
    };
    const ourJson = await run(["--format", "json"]);
    const report = JSON.parse(ourJson.stdout) as {
      status: { extended_status: string; boot_status_code: string };
      errors: { message: string }[];
    };
    const malformed = report.errors.some((e) => e.message.startsWith("Cannot read "));
    count(malformed ? "malformed (class b)" : report.status.extended_status);
    count(report.status.boot_status_code);
    if (report.errors.some((e) => e.message.startsWith("from /"))) count("moved run_dir");
    if (report.errors.some((e) => e.message.startsWith("Failed due to systemd unit failure")))
      count("unit failure");
    if (
      Object.keys(tree.systemctl).some((k) => k.endsWith(".service")) &&
      report.status.extended_status.endsWith("running")
    )
      count("running with a unit answer");
    if (tree.traits.configDiffers.length > 0) {
      // Class b/c (package README "Differences"): a config cloud-init raises on or reads from its working directory.
      count("config read differently (class b/c)");
      continue;
    }
    const theirJson = await theirsRun(["--format", "json"]);
    // Class b (package README "Differences"): a tree cloud-init cannot read (a traceback in any format) or reads
    // although it is malformed is an error report here; only that is checked.
    if (malformed) {
      let traceback = theirJson.stderr.includes("Traceback");
      for (const row of ROWS) traceback ||= (await theirsRun(row.theirs)).stderr.includes("Traceback");
      if (!traceback && tree.traits.acceptedByCloudInit.length === 0)
        found("json", `ours reports malformed input, cloud-init reads it: ${JSON.stringify(report.errors)}`);
      if (ourJson.code !== 1) found("json", `malformed input exits ${ourJson.code}, not 1`);
      continue;
    }
    for (const row of ROWS) {
      const theirs = await theirsRun(row.theirs);
      const mine = await run(row.ours);
      const name = row.theirs.join(" ") || "(no flags)";
      if (/\n {4}at /.test(mine.stderr)) found(name, `ours crashed: ${mine.stderr}`);
      if (theirs.stderr.includes("Traceback")) {
        // Class c: cloud-init raises on a v1 key named like a field that --long cannot iterate (`errors: 3`), on a
        // lone surrogate it prints to UTF-8 stdout, on PID 1's environ token without `=`; ours prints (package
        // README "Differences").
        count("cloud-init raises in a row (class c)");
        if (!tree.traits.shadowsComputed && tree.traits.cloudInitRaises.length === 0)
          found(name, `cloud-init raises, ours reads the tree: ${theirs.stderr.trim().split("\n").at(-1)}`);
        continue;
      }
      if (mine.stdout !== theirs.stdout)
        found(name, `stdout\n--- cloud-init\n${theirs.stdout}--- ours\n${mine.stdout}`);
      // Class b: cloud-init's own log lines (a config file that is not YAML: util.py load_yaml's warning) carry a
      // timestamp; bootstatus does not log.
      const theirStderr = withoutLogRecords(theirs.stderr);
      if (mine.stderr !== theirStderr)
        found(name, `stderr\n--- cloud-init\n${theirs.stderr}--- ours\n${mine.stderr}`);
      if (mine.code !== theirs.code) found(name, `exit code ${theirs.code} (cloud-init) vs ${mine.code}`);
    }
    if (theirJson.stderr.includes("Traceback")) continue;
    const cloudInit = JSON.parse(theirJson.stdout) as Record<string, unknown>;
    const v1 = JSON.parse(ourJson.stdout) as { recoverable_errors: { level: string }[] };
    // report v1 holds the computed values, which a v1 key of the same name hides in cloud-init's JSON.
    if (!tree.traits.shadowsComputed) {
      try {
        assert.deepEqual(byLevel(v1), asReportV1(cloudInit));
      } catch {
        found(
          "--format json",
          `report v1 ${JSON.stringify(v1)} vs cloud-init ${JSON.stringify(asReportV1(cloudInit))}`,
        );
      }
    }
    // Our --format yaml is report v1 too (package README): it must carry what cloud-init's JSON says.
    if (!tree.traits.shadowsComputed) {
      const yaml = await run(["--format", "yaml"]);
      try {
        assert.deepEqual(byLevel(parseYaml(yaml.stdout) as typeof v1), asReportV1(cloudInit));
      } catch {
        found(
          "--format yaml",
          `report v1 ${yaml.stdout} vs cloud-init ${JSON.stringify(asReportV1(cloudInit))}`,
        );
      }
    }
    // --wait only where cloud-init would not wait: a settled boot and a systemctl that answers.
    // (Ours decides; were it wrong, the oracle's 5 s alarm ends cloud-init's wait and the outputs differ.)
    const settled = !/(not started|running)$/.test(report.status.extended_status);
    if (settled && !tree.traits.systemctlFails) {
      count("--wait rows");
      for (const args of [["--wait"], ["--wait", "--long"], ["--wait", "--format", "json"]]) {
        const theirs = await theirsRun(args);
        const mine = await run(args.map((a) => (a === "json" ? "cloud-init-json" : a)));
        if (
          theirs.stderr.includes("Traceback") &&
          (tree.traits.shadowsComputed || tree.traits.cloudInitRaises.length > 0)
        )
          continue;
        if (mine.stdout !== theirs.stdout || mine.code !== theirs.code)
          found(
            args.join(" "),
            `--- cloud-init (${theirs.code})\n${theirs.stdout}--- ours (${mine.code})\n${mine.stdout}`,
          );
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
  t.diagnostic(JSON.stringify(Object.fromEntries([...seen].sort())));
  assert.deepEqual(findings, []);
});
