#!/usr/bin/env node
// `toolmgr lock` of 50 tools x 4 platforms against the fake code host with 50 ms added to every request (issue 3,
// "Performance"). Reports wall time against the critical path: the longest chain of requests that depend on each
// other, times the latency. Run after `npm run build -w packages/toolmgr`:
//
//   node bench/toolmgr/lock-bench.mjs [--runs 5] [--latency 50]
//
// Scenarios:
//   digests  every asset has a host digest (uploaded since 2025): chain = matching-refs -> releases/tags (2 requests);
//            channel tools: commits/{channel} -> releases/tags (2 requests)
//   token    the same with CODEHOST_TOKEN set: the privacy lookup runs beside the chain, so the chain stays 2
//   tofu     no host digests: chain = refs -> release -> browser URL -> storage redirect (4 requests), 200 downloads
//   relock   the token scenario again with its lock and store kept: every API answer revalidated by ETag (304)
// Each scenario is timed in-process (`main(["lock"])`, the resolution work alone) and as the built CLI (adds the
// process start-up, measured separately with `toolmgr version`).
import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const pkg = new URL("../../packages/toolmgr/", import.meta.url);
const { FakeCodeHost } = await import(new URL("dist/test/support/fake-code-host.js", pkg).href);
const { main } = await import(new URL("dist/src/main.js", pkg).href);
const bin = new URL("bin/toolmgr.js", pkg).pathname;

const { values } = parseArgs({
  options: { runs: { type: "string", default: "5" }, latency: { type: "string", default: "50" } },
});
const runs = Number(values.runs);
const latency = Number(values.latency);
const TOOLS = 50;
const CHANNEL_TOOLS = 10;
const PLATFORMS = ["linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64"];

function assets(name, label, digest) {
  return PLATFORMS.map((p) => ({
    name: `${name}-${label}-${p.replace("/", "-")}.tar.gz`,
    data: Buffer.from(`${name} ${label} ${p}`),
    digest,
  }));
}

async function setUp(digest) {
  const host = await FakeCodeHost.start();
  let toml = `platforms = ${JSON.stringify(PLATFORMS)}\n`;
  for (let i = 0; i < TOOLS; i++) {
    const name = `tool${String(i).padStart(2, "0")}`;
    const repo = `bench/${name}`;
    host.addRepo(repo);
    // Several versions and a moving channel tag, as real repositories have; matching-refs returns them all.
    for (const v of ["1.0.0", "1.1.0", "1.2.0", "1.3.0", "1.4.0"]) {
      host.addRelease(repo, { tag: `v${v}`, assets: assets(name, v, digest) });
    }
    const commit = host.setTag(repo, "nightly", { commit: `${repo} nightly build` });
    host.addRelease(repo, {
      tag: `nightly-${commit}`,
      prerelease: true,
      assets: assets(name, "nightly", digest),
    });
    const channel = i < CHANNEL_TOOLS;
    toml += `[tools.${name}]
version = "${channel ? "nightly" : "1"}"
[tools.${name}.source]
type = "github_release"
repo = "${repo}"
asset = "${name}-{version}-{os}-{arch}.tar.gz"
bin = ["${name}"]
platforms = ${JSON.stringify(PLATFORMS)}
[tools.${name}.source.channels.nightly]
asset = "${name}-nightly-{os}-{arch}.tar.gz"
`;
  }
  const dir = await mkdtemp(join(tmpdir(), "toolmgr-lock-bench-"));
  await writeFile(join(dir, "toolmgr.toml"), toml);
  host.latencyMs = latency;
  return { host, dir };
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function scenario(label, { digest, token, chain, relock = false }) {
  const { host, dir } = await setUp(digest);
  const criticalPath = chain * latency;
  const inProcess = [];
  const cli = [];
  const cpu = [];
  let requests = 0;
  const env = {
    PATH: process.env.PATH,
    CODEHOST_API_URL: host.apiUrl,
    ...(token ? { CODEHOST_TOKEN: host.token } : {}),
  };
  // relock: one store and lock kept across runs, populated once before timing: every API answer is revalidated
  // with its remembered ETag and answered 304 (conditional requests, issue 3 follow-up).
  const keptHome = relock ? await mkdtemp(join(tmpdir(), "toolmgr-lock-bench-home-")) : undefined;
  if (relock) {
    const r = await runCli(["lock"], { cwd: dir, env: { ...env, TOOLMGR_HOME: keptHome } });
    if (r.code !== 0) throw new Error(`lock failed as CLI: ${r.stderr}`);
  }
  host.notModified.clear();
  for (let run = 0; run < runs; run++) {
    // A fresh lock and a fresh store each time: every tool is resolved, every TOFU artifact downloaded.
    const home = keptHome ?? (await mkdtemp(join(tmpdir(), "toolmgr-lock-bench-home-")));
    if (!relock) await rm(join(dir, "toolmgr.lock"), { force: true });
    host.requests.clear();
    const io = { stdout: { write() {} }, stderr: { write: (s) => process.stderr.write(s) } };
    const deps = {
      io,
      env: { ...env, TOOLMGR_HOME: home },
      cwd: dir,
      fetch: globalThis.fetch,
      now: () => new Date(),
      runtime: { platform: "linux", arch: "x64", homedir: home },
      spawn: () => {
        throw new Error("lock spawns nothing");
      },
      onSignal: () => () => {},
      processes: { pid: process.pid, isRunning: () => true },
    };
    const t0 = performance.now();
    const code = await main(["lock"], deps);
    inProcess.push(performance.now() - t0);
    if (code !== 0) throw new Error(`lock failed in-process (${code})`);
    requests = [...host.requests.values()].reduce((a, b) => a + b, 0);

    const home2 = keptHome ?? (await mkdtemp(join(tmpdir(), "toolmgr-lock-bench-home-")));
    if (!relock) await rm(join(dir, "toolmgr.lock"), { force: true });
    const t1 = performance.now();
    const r = await runCli(["lock"], { cwd: dir, env: { ...env, TOOLMGR_HOME: home2 } });
    cli.push(performance.now() - t1);
    if (r.code !== 0) throw new Error(`lock failed as CLI: ${r.stderr}`);
    cpu.push(r.cpuMs);
  }
  const notModified = [...host.notModified.values()].reduce((a, b) => a + b, 0);
  if (relock) label = `${label} (${notModified / (2 * runs)} of ${requests} answered 304)`;
  await host.close();
  const mIn = median(inProcess);
  const mCli = median(cli);
  return { label, criticalPath, requests, mIn, mCli, minCli: Math.min(...cli), cpu: median(cpu) };
}

function runCli(args, { cwd, env }) {
  return new Promise((resolve, reject) => {
    // GNU time reports the child's CPU (user + system), which other processes on a shared machine do not inflate.
    const child = spawn("/usr/bin/time", ["-f", "CPU %U %S", process.execPath, bin, ...args], {
      cwd,
      env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (c) => {
      stderr += c;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const m = /CPU ([\d.]+) ([\d.]+)/.exec(stderr);
      resolve({ code, stderr, cpuMs: m ? (Number(m[1]) + Number(m[2])) * 1000 : Number.NaN });
    });
  });
}

function startup() {
  const times = [];
  const cpu = [];
  for (let i = 0; i < Math.max(runs, 5); i++) {
    const t = performance.now();
    const r = spawnSync("/usr/bin/time", ["-f", "CPU %U %S", process.execPath, bin, "version"], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    times.push(performance.now() - t);
    const m = /CPU ([\d.]+) ([\d.]+)/.exec(String(r.stderr));
    cpu.push(m ? (Number(m[1]) + Number(m[2])) * 1000 : Number.NaN);
  }
  return { wall: median(times), min: Math.min(...times), cpu: median(cpu) };
}

const start = startup();
const results = [];
results.push(await scenario("digests", { digest: true, token: false, chain: 2 }));
results.push(await scenario("token", { digest: true, token: true, chain: 2 }));
results.push(await scenario("tofu", { digest: false, token: false, chain: 4 }));
results.push(await scenario("relock", { digest: true, token: true, chain: 2, relock: true }));

console.log(
  `lock of ${TOOLS} tools (${CHANNEL_TOOLS} on a channel) x ${PLATFORMS.length} platforms, ${latency} ms per request, median of ${runs}`,
);
const load = (await import("node:os")).loadavg()[0].toFixed(1);
console.log(
  `CLI start-up (toolmgr version): median ${start.wall.toFixed(0)} ms, min ${start.min.toFixed(0)} ms, CPU ${start.cpu.toFixed(0)} ms; load average ${load}`,
);
console.log(
  "| scenario | requests | critical path | in-process (warm) | ratio | CLI wall median | CLI wall min | min - start-up min | ratio | CLI CPU |",
);
console.log("|---|---|---|---|---|---|---|---|---|---|");
for (const r of results) {
  const net = r.minCli - start.min;
  console.log(
    `| ${r.label} | ${r.requests} | ${r.criticalPath} ms | ${r.mIn.toFixed(0)} ms | ${(r.mIn / r.criticalPath).toFixed(2)}x | ${r.mCli.toFixed(0)} ms | ${r.minCli.toFixed(0)} ms | ${net.toFixed(0)} ms | ${(net / r.criticalPath).toFixed(2)}x | ${r.cpu.toFixed(0)} ms |`,
  );
}
