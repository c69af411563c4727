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
  // The floor the issue names: a two-line script that only `exec`s the tool (one `sh` start and nothing else).
  const floorScript = join(project, "exec-only.sh");
  await writeFile(floorScript, `#!/bin/sh\nexec ${direct} "$@"\n`, { mode: 0o755 });
  const [sh, d, two, s] = await hyperfine(
    ["sh -c true", `${direct} --version`, `${floorScript} --version`, `${shim} --version`],
    {
      cwd: nested,
      runs: runs * 3,
      env,
    },
  );
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
  // The bundle run directly (no code cache: what bin/toolmgr.js did before it used one), beside the launcher.
  const bare = join(pkg, "dist", "toolmgr.cjs");
  const [floor, ex, wh, st, sy, exBare, syBare] = await hyperfine(
    [
      "node -e 0",
      `node ${bin} exec tool0 --version`,
      `node ${bin} which tool0`,
      `node ${bin} status`,
      `node ${bin} sync --quiet`,
      `node ${bare} exec tool0 --version`,
      `node ${bare} sync --quiet`,
    ],
    { cwd: project, runs, env },
  );
  const f = (x) => x.toFixed(2);
  const r = (a, b) => `${(a / b).toFixed(2)}x`;
  const row = (name, x, base) =>
    `| ${name} | ${f(x.median)} | ${f(x.min)} | ${f(x.cpu)} | ${r(x.median, base.median)} | ${r(x.min, base.min)} | ${r(x.cpu, base.cpu)} |`;
  const out = [
    `load average at the start: ${load}; Node ${process.version}; RUNS=${runs}`,
    "",
    "| benchmark | median [ms] | min [ms] | user+sys [ms] | ratio (median) | ratio (min) | ratio (user+sys) |",
    "|:---|---:|---:|---:|---:|---:|---:|",
    row("`sh -c true`", sh, d),
    row("shell-script tool run directly", d, d),
    row("two-line script that only `exec`s it (the floor of any shim)", two, d),
    row("its shim, hot path (5 dirs deep, 13-tool lock)", s, d),
    row("its shim, files touched since the record (awk path)", slow, d2),
    row("`node -e 0`", floor, floor),
    row("`toolmgr exec tool0 --version`", ex, floor),
    row("`toolmgr which tool0`", wh, floor),
    row("`toolmgr status`", st, floor),
    row("`toolmgr sync --quiet`, all installed", sy, floor),
    row("`exec tool0 --version`, bundle without its code cache", exBare, floor),
    row("`sync --quiet`, bundle without its code cache", syBare, floor),
  ];
  // The single executable (`npm run release` writes release/toolmgr-linux-x64; SEA=<path>) against its own empty
  // start: the same Node binary with an empty main script injected the same way (code cache on).
  if (process.env.SEA !== undefined) {
    const sea = process.env.SEA;
    const dir = join(project, ".sea-empty");
    await mkdir(dir);
    await writeFile(join(dir, "main.cjs"), "");
    await writeFile(
      join(dir, "sea-config.json"),
      JSON.stringify({
        main: join(dir, "main.cjs"),
        output: join(dir, "sea.blob"),
        disableExperimentalSEAWarning: true,
        useCodeCache: true,
      }),
    );
    await run(process.execPath, ["--experimental-sea-config", join(dir, "sea-config.json")]);
    const empty = join(dir, "empty-sea");
    await run("cp", [process.execPath, empty]);
    await run(process.execPath, [
      join(root, "node_modules", "postject", "dist", "cli.js"),
      empty,
      "NODE_SEA_BLOB",
      join(dir, "sea.blob"),
      "--sentinel-fuse",
      "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2",
    ]);
    await run(sea, ["sync", "--quiet"], { cwd: project, env: { ...process.env, ...env } });
    const [e, v, sx, sw, ss, sy2] = await hyperfine(
      [
        empty,
        `${sea} version`,
        `${sea} exec tool0 --version`,
        `${sea} which tool0`,
        `${sea} status`,
        `${sea} sync --quiet`,
      ],
      { cwd: project, runs, env },
    );
    out.push(
      row("single executable, empty main (its floor)", e, e),
      row("single executable `version`", v, e),
      row("single executable `exec tool0 --version`", sx, e),
      row("single executable `which tool0`", sw, e),
      row("single executable `status`", ss, e),
      row("single executable `sync --quiet`, all installed", sy2, e),
    );
  }
  process.stdout.write(`${out.join("\n")}\n`);
} finally {
  await host.close();
  if (process.env.KEEP === undefined) await rm(project, { recursive: true, force: true });
  else process.stderr.write(`kept ${project}\n`);
}
