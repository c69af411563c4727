#!/usr/bin/env node
// toolmgr SYNC benchmarks (issue 4 "Performance", issue 10 "Tests and figures"), each measured side by side with its
// reference in one hyperfine run, so the ratio holds on a noisy machine:
//   1. shim overhead: the shim vs the installed binary run directly, from 5 directories below the project;
//   2. `toolmgr exec <tool> --version` vs the same binary run directly, and vs `node -e 0` (Node's start-up floor);
//   3. `toolmgr sync` of an already-installed toolchain of 13 tools vs `node -e 0`;
//   4. installing a 100 MB .tar.gz from a loopback server vs `curl | tee >(sha256sum) | tar xz` of the same file.
// Needs `npm run build -w packages/toolmgr`, hyperfine, curl, bash. Run: node bench/toolmgr/sync-bench.mjs
// Every server binds 127.0.0.1; nothing leaves the machine.
import { execFile, execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

// Children run asynchronously: the fake code host lives in this process and must keep answering.
const run = promisify(execFile);

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const pkg = join(root, "packages", "toolmgr");
const bin = join(pkg, "bin", "toolmgr.js");
const { FakeCodeHost } = await import(join(pkg, "dist", "test", "support", "fake-code-host.js"));
const runs = Number(process.env.RUNS ?? 100);

async function hyperfine(commands, options) {
  const file = join(tmpdir(), `hf-${randomBytes(4).toString("hex")}.json`);
  const args = ["-N", "--warmup", "5", "--runs", String(options.runs), "--export-json", file];
  if (options.prepare) args.push("--prepare", options.prepare);
  await run("hyperfine", [...args, ...commands], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    maxBuffer: 1 << 24,
  });
  const results = JSON.parse(await readFile(file, "utf8")).results;
  await rm(file);
  return results.map((x) => ({
    median: x.median * 1000,
    mean: x.mean * 1000,
    user: x.user * 1000,
    system: x.system * 1000,
  }));
}

function toolToml(name, asset) {
  return `[tools.${name}]
version = "1"
[tools.${name}.source]
type = "github_release"
repo = "bench/${name}"
asset = "${asset}"
bin = ["${name}"]
platforms = ["linux/amd64"]
`;
}

async function cli(args, options) {
  const r = await run(process.execPath, [bin, ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
  });
  return r.stdout;
}

const rows = [];
const log = (s) => process.stderr.write(`${new Date().toISOString()} ${s}\n`);
const host = await FakeCodeHost.start();

// A project pinning 13 tools (raw executables that print a version), locked and synced.
const project = await mkdtemp(join(tmpdir(), "tm-sync-bench-"));
const home = join(project, ".home");
const names = Array.from({ length: 13 }, (_, i) => `tool${i}`);
for (const n of names) {
  host.addRepo(`bench/${n}`);
  host.addRelease(`bench/${n}`, {
    tag: "v1.0.0",
    assets: [{ name: `${n}-1.0.0-linux`, data: Buffer.from(`#!/bin/sh\necho "${n} 1.0.0"\n`) }],
  });
}
await writeFile(
  join(project, "toolmgr.toml"),
  names.map((n) => toolToml(n, `${n}-{version}-{os}`)).join("\n"),
);
const env = { CODEHOST_API_URL: host.apiUrl, TOOLMGR_HOME: home };
await cli(["lock"], { cwd: project, env });
await cli(["sync", "--quiet"], { cwd: project, env });
const direct = (await cli(["which", "tool0"], { cwd: project, env })).trim();
const nested = join(project, "a", "b", "c", "d", "e");
await mkdir(nested, { recursive: true });
const shim = join(home, "shims", "tool0");
log("13-tool project synced");

{
  const [d, s] = await hyperfine([`${direct} --version`, `${shim} --version`], {
    cwd: nested,
    runs: runs * 3,
    env,
  });
  rows.push([
    "shim `tool0 --version` vs the binary run directly (5 dirs deep, 13-tool lock)",
    `${s.median.toFixed(2)} ms`,
    `direct ${d.median.toFixed(2)} ms`,
    `+${(s.median - d.median).toFixed(2)} ms`,
    "<= 3 ms overhead",
  ]);
}
{
  const [floor, d, ex, sync] = await hyperfine(
    ["node -e 0", `${direct} --version`, `node ${bin} exec tool0 --version`, `node ${bin} sync --quiet`],
    { cwd: project, runs, env },
  );
  log("exec and sync measured");
  rows.push([
    "`toolmgr exec tool0 --version`",
    `${ex.median.toFixed(1)} ms`,
    `direct ${d.median.toFixed(2)} ms; node -e 0 ${floor.median.toFixed(1)} ms`,
    `${(ex.median / floor.median).toFixed(2)}x node -e 0`,
    "(the shim is the fast path)",
  ]);
  rows.push([
    "`toolmgr sync`, 13 tools already installed",
    `${sync.median.toFixed(1)} ms`,
    `node -e 0 ${floor.median.toFixed(1)} ms`,
    `+${(sync.median - floor.median).toFixed(1)} ms over start-up`,
    "(peer reports 5 ms, a Go binary)",
  ]);
}

// A 100 MB .tar.gz (incompressible payload, so gzip does not hide the transfer), locked from the fake host.
{
  const dir = await mkdtemp(join(tmpdir(), "tm-install-bench-"));
  const payload = join(dir, "payload");
  await mkdir(join(payload, "big"), { recursive: true });
  execFileSync(
    "sh",
    [
      "-c",
      "head -c 100000000 /dev/urandom > big/blob && printf '#!/bin/sh\\necho big\\n' > big/big && chmod +x big/big && tar -czf ../big.tar.gz big",
    ],
    { cwd: payload },
  );
  const data = await readFile(join(dir, "big.tar.gz"));
  log("100 MB artifact built");
  host.addRepo("bench/big");
  host.addRelease("bench/big", { tag: "v1.0.0", assets: [{ name: "big-1.0.0.tar.gz", data }] });
  const proj = join(dir, "p");
  await mkdir(proj);
  await writeFile(
    join(proj, "toolmgr.toml"),
    `${toolToml("big", "big-{version}.tar.gz")}strip_components = 1\n`,
  );
  const bigHome = join(dir, "home");
  await cli(["lock"], { cwd: proj, env: { ...env, TOOLMGR_HOME: bigHome } });
  log("100 MB artifact locked");
  const url = /url = "([^"]+)"/.exec(await readFile(join(proj, "toolmgr.lock"), "utf8"))[1];
  const [ref, ours] = await hyperfine(
    [
      `bash -c "mkdir -p ${dir}/x && curl -sfL ${url} | tee >(sha256sum > ${dir}/sum) | tar xz -C ${dir}/x"`,
      `node ${bin} sync --quiet`,
    ],
    {
      cwd: proj,
      runs: Math.max(5, Math.round(runs / 10)),
      env: { ...env, TOOLMGR_HOME: bigHome },
      prepare: `rm -rf ${dir}/x ${bigHome}`,
    },
  );
  rows.push([
    "install a 100 MB .tar.gz from a loopback server (download, sha256, extract)",
    `${ours.median.toFixed(0)} ms`,
    `curl \\| tee >(sha256sum) \\| tar xz ${ref.median.toFixed(0)} ms`,
    `${(ours.median / ref.median).toFixed(2)}x`,
    "<= 1.0x",
  ]);
  await rm(dir, { recursive: true, force: true });
}
await host.close();
await rm(project, { recursive: true, force: true });

console.log("| benchmark | toolmgr | reference | result | target |\n|:---|---:|:---|:---|:---|");
for (const r of rows) console.log(`| ${r.join(" | ")} |`);
