#!/usr/bin/env node
// toolmgr hot paths (issue 40 items 1 and 2), each side by side with its reference in one hyperfine run:
//   1. the shim of a shell-script tool vs the tool run directly vs `sh -c true` (target: shim <= 2.0x direct),
//      from 5 directories below a 13-tool project, and the shim's slow path (files touched since the record);
//   2. `toolmgr exec <tool> --version`, `which <tool>`, `status`, `sync` with everything installed vs `node -e 0`
//      (target: each <= 1.25x).
// Needs `npm run build -w packages/toolmgr` and hyperfine. Run: node bench/toolmgr/hot-path-bench.mjs
// (RUNS=n, default 100). Every server binds 127.0.0.1; nothing leaves the machine.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const pkg = join(root, "packages", "toolmgr");
const bin = join(pkg, "bin", "toolmgr.js");
const { FakeCodeHost } = await import(join(pkg, "dist", "test", "support", "fake-code-host.js"));
const runs = Number(process.env.RUNS ?? 100);

async function hyperfine(commands, options) {
  const file = join(tmpdir(), `hf-${randomBytes(4).toString("hex")}.json`);
  const args = ["-N", "--warmup", "10", "--runs", String(options.runs), "--export-json", file];
  await run("hyperfine", [...args, ...commands], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    maxBuffer: 1 << 24,
  });
  const results = JSON.parse(await readFile(file, "utf8")).results;
  await rm(file);
  return results.map((x) => ({
    median: x.median * 1000,
    min: x.min * 1000,
    cpu: (x.user + x.system) * 1000,
  }));
}

const host = await FakeCodeHost.start();
const project = await mkdtemp(join(tmpdir(), "tm-hot-bench-"));
try {
  const home = join(project, ".home");
  const names = Array.from({ length: 13 }, (_, i) => `tool${i}`);
  for (const n of names) {
    host.addRepo(`bench/${n}`);
    host.addRelease(`bench/${n}`, {
      tag: "v1.0.0",
      assets: [{ name: `${n}-1.0.0-linux`, data: Buffer.from(`#!/bin/sh\necho "${n} 1.0.0"\n`) }],
    });
  }
  const toml = names
    .map(
      (n) =>
        `[tools.${n}]\nversion = "1"\n[tools.${n}.source]\ntype = "github_release"\nrepo = "bench/${n}"\nasset = "${n}-{version}-{os}"\nbin = ["${n}"]\nplatforms = ["linux/amd64"]\n`,
    )
    .join("\n");
  await writeFile(join(project, "toolmgr.toml"), toml);
  const env = {
    CODEHOST_API_URL: host.apiUrl,
    TOOLMGR_HOME: home,
    XDG_CONFIG_HOME: join(project, ".config"),
  };
  const cli = (args) =>
    run(process.execPath, [bin, ...args], { cwd: project, env: { ...process.env, ...env } });
  await cli(["lock"]);
  await cli(["sync", "--quiet"]);
  const direct = (await cli(["which", "tool0"])).stdout.trim();
  const nested = join(project, "a", "b", "c", "d", "e");
  await mkdir(nested, { recursive: true });
  const shim = join(home, "shims", "tool0");
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
  const [sh, d, s] = await hyperfine(["sh -c true", `${direct} --version`, `${shim} --version`], {
    cwd: nested,
    runs: runs * 3,
    env,
  });
  // The slow path: the project file touched (same text), so the shim compares it with the recorded copy in awk.
  // (Now, after the record: never in the future, which would keep the next record from answering too.)
  await new Promise((resolve) => setTimeout(resolve, 20));
  const now = Date.now() / 1000;
  await utimes(join(project, "toolmgr.toml"), now, now);
  const [d2, slow] = await hyperfine([`${direct} --version`, `${shim} --version`], {
    cwd: nested,
    runs,
    env,
  });
  await cli(["sync", "--quiet"]); // records the touched file again
  const [floor, ex, wh, st, sy] = await hyperfine(
    [
      "node -e 0",
      `node ${bin} exec tool0 --version`,
      `node ${bin} which tool0`,
      `node ${bin} status`,
      `node ${bin} sync --quiet`,
    ],
    { cwd: project, runs, env },
  );
  const f = (x) => x.toFixed(2);
  const r = (a, b) => `${(a / b).toFixed(2)}x`;
  const out = [
    `load average at the start: ${load}; Node ${process.version}; RUNS=${runs}`,
    "",
    "| benchmark | median [ms] | min [ms] | ratio (median) | ratio (min) |",
    "|:---|---:|---:|---:|---:|",
    `| \`sh -c true\` | ${f(sh.median)} | ${f(sh.min)} | ${r(sh.median, d.median)} of direct | |`,
    `| shell-script tool run directly | ${f(d.median)} | ${f(d.min)} | 1.00x | 1.00x |`,
    `| its shim, hot path (5 dirs deep, 13-tool lock) | ${f(s.median)} | ${f(s.min)} | ${r(s.median, d.median)} | ${r(s.min, d.min)} |`,
    `| its shim, files touched since the record (awk path) | ${f(slow.median)} | ${f(slow.min)} | ${r(slow.median, d2.median)} | ${r(slow.min, d2.min)} |`,
    `| \`node -e 0\` | ${f(floor.median)} | ${f(floor.min)} | 1.00x | 1.00x |`,
    `| \`toolmgr exec tool0 --version\` | ${f(ex.median)} | ${f(ex.min)} | ${r(ex.median, floor.median)} | ${r(ex.min, floor.min)} |`,
    `| \`toolmgr which tool0\` | ${f(wh.median)} | ${f(wh.min)} | ${r(wh.median, floor.median)} | ${r(wh.min, floor.min)} |`,
    `| \`toolmgr status\` | ${f(st.median)} | ${f(st.min)} | ${r(st.median, floor.median)} | ${r(st.min, floor.min)} |`,
    `| \`toolmgr sync --quiet\`, all installed | ${f(sy.median)} | ${f(sy.min)} | ${r(sy.median, floor.median)} | ${r(sy.min, floor.min)} |`,
  ];
  process.stdout.write(`${out.join("\n")}\n`);
} finally {
  await host.close();
  if (process.env.KEEP === undefined) await rm(project, { recursive: true, force: true });
  else process.stderr.write(`kept ${project}\n`);
}
