// Single process vs three replicas sharing one Redis (--storage.redis-url), in the same run on 127.0.0.1, both ours.
// Fills 1000 groups × 100 series = 100k series, then measures: PUT latency of a 100-series group (sequential),
// scrape time of /metrics (on a replica that did not take the pushes), RSS of each process, and push throughput
// with 20 concurrent clients (spread over the replicas), and the CPU time all server processes (gateways, Redis) used
// per PUT and per push of those phases (on shared cores that, not one process's path, bounds the latency). Both setups
// run side by side and each figure is measured in rounds alternating between them.
// Usage: node bench/pushgateway/replicas.mjs [--replicas=3] [--groups=1000] [--puts=200] [--scrapes=10] [--pushes=2000]
//        [--rounds=4]
// PG_BENCH_BIN=<bin/pushgateway.js> runs another build (A/B); PG_BENCH_NODE_ARGS="--cpu-prof ..." profiles each gateway.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";

const arg = (name, def) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? def);
const GROUPS = arg("groups", 1000);
const SERIES = 100;
const PUTS = arg("puts", 200);
const SCRAPES = arg("scrapes", 10);
const CLIENTS = 20;
const REPLICAS = arg("replicas", 3);
// --pin: the gateway that takes the sequential PUTs (the single process, or the first replica) alone on CPU 0; this
// client, Redis and the other replicas on CPU 1 — as if the answering replica had a machine of its own.
const PIN = process.argv.includes("--pin");
// --nice-followers: the replicas that do not take the sequential PUTs run at nice 19, so on these shared cores they
// only get CPU the answering replica, Redis and this client leave idle — as if they ran on other machines.
const NICE = process.argv.includes("--nice-followers");
const placed = (command, args, { core, follower }) => {
  const [cmd, rest] = PIN ? ["taskset", ["-c", String(core), command, ...args]] : [command, args];
  return NICE && follower ? ["nice", ["-n", "19", cmd, ...rest]] : [cmd, rest];
};
if (PIN) spawnSync("taskset", ["-a", "-cp", "1", String(process.pid)], { stdio: "ignore" });
const THROUGHPUT_PUSHES = arg("pushes", 2000);
/** Rounds the measurements alternate in between the two setups (see below). */
const ROUNDS = arg("rounds", 4);
// --cpu-quota=C: every gateway process (the single one, and each replica) in a cgroup of its own capped at C cores
// (CFS quota, 10 ms period), the client and Redis uncapped: as if each gateway ran on a machine of its own of C cores,
// the replicas on N such machines — the deployment replicas are for — instead of N processes sharing these two cores.
// Pick C so that N × C plus the client and Redis stay below the cores here (0.4 for three replicas on two cores).
const QUOTA = arg("cpu-quota", 0);
const cgroups = [];
/** Moves `pid` (all its threads) into a new cgroup capped at QUOTA cores; cgroup v2, else v1's cpu controller. */
function capCpu(pid) {
  const period = 10_000;
  const quota = Math.round(QUOTA * period);
  const v2 = existsSync("/sys/fs/cgroup/cgroup.controllers");
  const dir = v2 ? `/sys/fs/cgroup/pg-bench-${pid}` : `/sys/fs/cgroup/cpu/pg-bench-${pid}`;
  try {
    if (v2) writeFileSync("/sys/fs/cgroup/cgroup.subtree_control", "+cpu");
    mkdirSync(dir);
    if (v2) writeFileSync(`${dir}/cpu.max`, `${quota} ${period}`);
    else {
      writeFileSync(`${dir}/cpu.cfs_period_us`, String(period));
      writeFileSync(`${dir}/cpu.cfs_quota_us`, String(quota));
    }
    writeFileSync(`${dir}/cgroup.procs`, String(pid));
  } catch (error) {
    throw new Error(`--cpu-quota needs root and a writable cgroup cpu controller: ${error.message}`);
  }
  cgroups.push(dir);
}
const OURS =
  process.env.PG_BENCH_BIN ??
  fileURLToPath(new URL("../../packages/pushgateway/bin/pushgateway.js", import.meta.url));

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

async function waitReady(url) {
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not become ready`);
}

async function startGateway(args, { follower }) {
  const port = await freePort();
  const node = [
    ...(process.env.PG_BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? []),
    OURS,
    ...args,
    `--web.listen-address=127.0.0.1:${port}`,
  ];
  const child = spawn(...placed(process.execPath, node, { core: follower ? 1 : 0, follower }), {
    stdio: "ignore",
  });
  if (QUOTA > 0) capCpu(child.pid);
  const base = `http://127.0.0.1:${port}`;
  await waitReady(`${base}/-/ready`);
  return { child, base };
}

async function startRedis() {
  const port = await freePort();
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
  const child = spawn(...placed("/usr/bin/redis-server", args, { core: 1, follower: false }), {
    stdio: "ignore",
  });
  await new Promise((r) => setTimeout(r, 300));
  return { child, url: `redis://127.0.0.1:${port}/0` };
}

// The bodies are built before any timing, and sent with node:http over kept-alive connections: `fetch` building each
// body took 0.8-1.0 ms of this client's CPU per PUT, and on two shared cores the client's CPU is CPU the gateways
// lose (the single process is one thread, the replicas can use both cores). 0.3-0.5 ms this way.
const BODIES = Array.from({ length: 256 }, (_, g) => {
  let s = "# TYPE bench_metric gauge\n";
  for (let i = 0; i < SERIES; i++) s += `bench_metric{shard="${i}"} ${g + i / 7}\n`;
  return Buffer.from(s);
});
const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });

/**
 * PUTs body `b` (of BODIES, modulo its length) as group `g` (modulo GROUPS) to `base`; resolves once the answer was
 * read, rejects unless it is 200.
 */
const put = (base, g, b = g) =>
  new Promise((resolve, reject) => {
    const body = BODIES[b % BODIES.length];
    const req = request(
      `${base}/metrics/job/bench/instance/i${g % GROUPS}`,
      { method: "PUT", agent, headers: { "content-length": body.length } },
      (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () =>
          res.statusCode === 200
            ? resolve()
            : reject(new Error(`push failed: ${res.statusCode} ${Buffer.concat(chunks)}`)),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });

async function pushMany(bases, count, concurrency) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      while (next < count) {
        const g = next++;
        await put(bases[(g + w) % bases.length], g);
      }
    }),
  );
}

const rssMiB = (pid) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
/** CPU time (user + system, ms) the processes used so far: /proc/<pid>/stat fields 14 and 15, in clock ticks (100/s). */
const cpuMs = (pids) =>
  pids.reduce((sum, pid) => {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return sum + (Number(fields[11]) + Number(fields[12])) * 10;
  }, 0);
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

/**
 * One setup's figures, measured in ROUNDS rounds interleaved with the other setup's (see below): every round adds
 * its PUT latencies, scrape times, pushes and CPU to the totals here.
 */
function newSetup(name, gateways, others = []) {
  return {
    name,
    gateways,
    bases: gateways.map((g) => g.base),
    pids: [...gateways.map((g) => g.child.pid), ...others],
    puts: [],
    putCpuByProcess: [...gateways, ...others].map(() => 0),
    scrapes: [],
    bytes: 0,
    pushMs: 0,
    pushes: 0,
    pushCpu: 0,
  };
}

/** This round's share of the sequential PUTs to the first gateway: PUTs `from` to `to` - 1. */
async function putRound(s, from, to) {
  const before = s.pids.map((pid) => cpuMs([pid]));
  for (let i = from; i < to; i++) {
    const t = performance.now();
    // Body i + 1: each group gets values other than the fill's (1000 groups, 256 bodies: so does every later push).
    await put(s.bases[0], i, i + 1);
    s.puts.push(performance.now() - t);
  }
  // Once the other replicas have followed the last PUTs (they catch up 100 ms after an entry).
  await new Promise((r) => setTimeout(r, 300));
  s.pids.forEach((pid, i) => {
    s.putCpuByProcess[i] += cpuMs([pid]) - before[i];
  });
}

/** This round's scrapes of /metrics on the last gateway (for replicas: one that did not take the PUTs). */
async function scrapeRound(s, count) {
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    const text = await (await fetch(`${s.bases[s.bases.length - 1]}/metrics`)).text();
    s.scrapes.push(performance.now() - t);
    s.bytes = text.length;
  }
}

/** This round's pushes by CLIENTS concurrent clients, spread over the gateways. */
async function pushRound(s, count) {
  const cpu = cpuMs(s.pids);
  const t = performance.now();
  await pushMany(s.bases, count, CLIENTS);
  s.pushMs += performance.now() - t;
  s.pushes += count;
  s.pushCpu += cpuMs(s.pids) - cpu;
}

function figures(s) {
  return {
    name: s.name,
    putMedian: quantile(s.puts, 0.5),
    putP90: quantile(s.puts, 0.9),
    scrapeMedian: quantile(s.scrapes, 0.5),
    bytes: s.bytes,
    throughput: s.pushes / (s.pushMs / 1000),
    putCpuMs: s.putCpuByProcess.reduce((a, b) => a + b, 0) / s.puts.length,
    putCpuByProcess: s.putCpuByProcess.map((ms) => ms / s.puts.length),
    pushCpuMs: s.pushCpu / s.pushes,
    rss: s.gateways.map((g) => rssMiB(g.child.pid)),
  };
}

const started = [];
try {
  // Both setups run side by side, and every figure is measured in ROUNDS rounds that alternate between them (ABBA, so
  // a drift of the machine over the run weighs on both alike): on these shared cores the speed of the machine moves
  // by tens of percent within minutes, and measuring one setup after the other put that noise into the ratios (PUT
  // ratios of 1.13-2.10x over ten runs of the same builds). The setup not being measured is idle meanwhile.
  const single = await startGateway([], { follower: false });
  started.push(single.child);
  const redis = await startRedis();
  started.push(redis.child);
  const replicas = [];
  for (let i = 0; i < REPLICAS; i++) {
    const g = await startGateway([`--storage.redis-url=${redis.url}`], { follower: i > 0 });
    started.push(g.child);
    replicas.push(g);
  }
  const setups = [
    newSetup("single process", [single]),
    newSetup(`${REPLICAS} replica${REPLICAS === 1 ? "" : "s"} + redis-server`, replicas, [redis.child.pid]),
  ];
  for (const s of setups) await pushMany(s.bases, GROUPS, 8);
  const share = (total, round) => [
    Math.floor((total * round) / ROUNDS),
    Math.floor((total * (round + 1)) / ROUNDS),
  ];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? setups : [...setups].reverse();
    const [from, to] = share(PUTS, round);
    for (const s of order) await putRound(s, from, to);
    const [s0, s1] = share(SCRAPES, round);
    for (const s of order) await scrapeRound(s, s1 - s0);
    const [p0, p1] = share(THROUGHPUT_PUSHES, round);
    for (const s of order) await pushRound(s, p1 - p0);
  }
  const [one, three] = setups.map(figures);
  const redisRss = rssMiB(redis.child.pid);
  const row = (r) =>
    `| ${r.name} | ${r.putMedian.toFixed(2)} | ${r.putP90.toFixed(2)} | ${r.scrapeMedian.toFixed(1)} | ${(r.bytes / 1e6).toFixed(1)} | ${r.throughput.toFixed(0)} | ${r.putCpuMs.toFixed(2)} | ${r.pushCpuMs.toFixed(2)} | ${r.rss.map((x) => x.toFixed(0)).join(" / ")} |`;
  console.log(
    `${QUOTA > 0 ? `each gateway capped at ${QUOTA} cores (own cgroup); ` : ""}${PIN ? "pinned (answering gateway on CPU 0; client, Redis, other replicas on CPU 1); " : ""}${NICE ? "other replicas at nice 19; " : ""}${GROUPS} groups × ${SERIES} series = ${GROUPS * SERIES} series; ${PUTS} PUTs, ${SCRAPES} scrapes, ${THROUGHPUT_PUSHES} pushes by ${CLIENTS} clients\n`,
  );
  console.log(
    "| setup | PUT median ms | PUT p90 ms | scrape median ms | scrape MB | pushes/s (20 clients) | server CPU ms per PUT | per push (20 clients) | RSS MiB per process |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|");
  console.log(row(one));
  console.log(row(three));
  console.log(`\nredis-server RSS ${redisRss.toFixed(0)} MiB`);
  const each = (xs) => xs.map((x) => x.toFixed(2)).join(" / ");
  console.log(
    `CPU ms per sequential PUT by process: single ${each(one.putCpuByProcess)}; replicas: answering ${each(three.putCpuByProcess.slice(0, 1))}, others ${each(three.putCpuByProcess.slice(1, REPLICAS))}, redis-server ${each(three.putCpuByProcess.slice(REPLICAS))}`,
  );
  console.log(
    `ratios (replicas/single): PUT ${(three.putMedian / one.putMedian).toFixed(2)}×, scrape ${(three.scrapeMedian / one.scrapeMedian).toFixed(2)}× (targets ≤1.5), throughput ${(three.throughput / one.throughput).toFixed(2)}×`,
  );
} finally {
  agent.destroy();
  for (const c of started) c.kill("SIGTERM");
  // A cgroup can be removed once its process has gone.
  for (const dir of cgroups) {
    for (let i = 0; i < 50; i++) {
      try {
        rmdirSync(dir);
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }
}
