// Side-by-side benchmark: Debian's prometheus-pushgateway and ours, started fresh in the same run on 127.0.0.1.
// Fills each with GROUPS groups of SERIES series (~100k), then measures: PUT latency of a 100-series group,
// scrape time of /metrics, and resident memory; for ours also an aggregating POST of 100 counters (/aggregate/...,
// beyond upstream), compared with the peer's plain PUT. Usage: node bench/pushgateway/bench.mjs [--groups=1000]
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";

const arg = (name, def) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? def);
const GROUPS = arg("groups", 1000);
const SERIES = 100;
const PUTS = arg("puts", 200);
const SCRAPES = arg("scrapes", 10);
const AGGREGATES = arg("aggregates", 200);
// Scrapes each right after a PUT (after the RSS reading): a store that changed since the last scrape, as when jobs
// push between Prometheus' scrapes; ours then merges and orders its families again.
const CHANGED_SCRAPES = arg("changed-scrapes", 5);
// PG_BENCH_BIN: another launcher or build to measure as ours (A/B of two builds, as persistence.mjs).
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

async function start(command, args, port) {
  const child = spawn(command, [...args, `--web.listen-address=127.0.0.1:${port}`], { stdio: "ignore" });
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/-/ready`)).ok) return child;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${command} did not become ready`);
}

// Every group holds the same 100 series names with different grouping labels, as a fleet of batch jobs would.
const body = (g) => {
  let s = "# TYPE bench_metric gauge\n";
  for (let i = 0; i < SERIES; i++) s += `bench_metric{shard="${i}"} ${g + i / 7}\n`;
  return s;
};

async function fill(base) {
  const concurrency = 8;
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < GROUPS) {
        const g = next++;
        const r = await fetch(`${base}/metrics/job/bench/instance/i${g}`, { method: "PUT", body: body(g) });
        if (!r.ok) throw new Error(`fill failed: ${r.status} ${await r.text()}`);
      }
    }),
  );
}

const rssMiB = (pid) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
// CPU time the server spent (user + system, ms), from /proc/<pid>/stat: on a machine other work also loads, wall
// times mostly measure each server's share of the cores (Go's spreads over threads, node's main thread is one).
const cpuMs = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
};
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

// An aggregating push: 100 counters added into one of 10 groups (which, after the first round, hold them all).
const counters = (i) => {
  let s = "# TYPE bench_done_total counter\n";
  for (let k = 0; k < SERIES; k++) s += `bench_done_total{shard="${k}"} ${(i % 3) + 1}\n`;
  return s;
};

async function aggregated(base) {
  const times = [];
  for (let i = 0; i < AGGREGATES; i++) {
    const t = performance.now();
    const r = await fetch(`${base}/aggregate/metrics/job/agg/instance/a${i % 10}`, {
      method: "POST",
      body: counters(i),
    });
    if (!r.ok) throw new Error(`aggregating push failed: ${r.status} ${await r.text()}`);
    times.push(performance.now() - t);
  }
  return quantile(times, 0.5);
}

async function measure(name, command, args, options = {}) {
  const port = await freePort();
  const child = await start(command, args, port);
  const base = `http://127.0.0.1:${port}`;
  try {
    await fill(base);
    const put = [];
    const putCpu = cpuMs(child.pid);
    for (let i = 0; i < PUTS; i++) {
      const b = body(i);
      const t = performance.now();
      const r = await fetch(`${base}/metrics/job/bench/instance/i${i % GROUPS}`, { method: "PUT", body: b });
      await r.arrayBuffer();
      put.push(performance.now() - t);
    }
    const putCpuMs = (cpuMs(child.pid) - putCpu) / PUTS;
    const scrape = [];
    let bytes = 0;
    const scrapeCpu = cpuMs(child.pid);
    for (let i = 0; i < SCRAPES; i++) {
      const t = performance.now();
      const text = await (await fetch(`${base}/metrics`)).text();
      scrape.push(performance.now() - t);
      bytes = text.length;
    }
    const scrapeCpuMs = (cpuMs(child.pid) - scrapeCpu) / SCRAPES;
    // RSS first: the aggregated groups below add 1,000 series the peer does not hold.
    const rss = rssMiB(child.pid);
    const changed = [];
    let changedCpuMs = 0;
    for (let i = 0; i < CHANGED_SCRAPES; i++) {
      await (
        await fetch(`${base}/metrics/job/bench/instance/i${i % GROUPS}`, { method: "PUT", body: body(i + 1) })
      ).arrayBuffer();
      const cpu = cpuMs(child.pid);
      const t = performance.now();
      await (await fetch(`${base}/metrics`)).text();
      changed.push(performance.now() - t);
      changedCpuMs += cpuMs(child.pid) - cpu;
    }
    return {
      name,
      putMedian: quantile(put, 0.5),
      putP90: quantile(put, 0.9),
      scrapeMedian: quantile(scrape, 0.5),
      putCpuMs,
      scrapeCpuMs,
      bytes,
      rss,
      changedScrapeMedian: quantile(changed, 0.5),
      changedScrapeCpuMs: changedCpuMs / CHANGED_SCRAPES,
      aggregateMedian: options.aggregate ? await aggregated(base) : undefined,
    };
  } finally {
    child.kill("SIGTERM");
  }
}

// Memory only, as ours by default (Debian defaults --persistence.file to /var/lib/prometheus/pushgateway.data).
const peer = await measure("prometheus-pushgateway 1.5.1", "/usr/bin/prometheus-pushgateway", [
  "--persistence.file=",
]);
const ours = await measure("packages/pushgateway", process.execPath, [OURS], { aggregate: true });
const row = (r) =>
  `| ${r.name} | ${r.putMedian.toFixed(2)} | ${r.putP90.toFixed(2)} | ${r.putCpuMs.toFixed(2)} | ${r.scrapeMedian.toFixed(1)} | ${r.scrapeCpuMs.toFixed(1)} | ${(r.bytes / 1e6).toFixed(1)} | ${r.rss.toFixed(0)} |`;
console.log(
  `${GROUPS} groups × ${SERIES} series = ${GROUPS * SERIES} series; ${PUTS} PUTs, ${SCRAPES} scrapes\n`,
);
console.log(
  "| server | PUT median ms | PUT p90 ms | PUT CPU ms | scrape median ms | scrape CPU ms | scrape MB | RSS MiB |",
);
console.log("|---|---|---|---|---|---|---|---|");
console.log(row(peer));
console.log(row(ours));
console.log(
  `\nours: aggregating POST of ${SERIES} counters, median ${ours.aggregateMedian.toFixed(2)} ms (${AGGREGATES} pushes)`,
);
console.log(
  `\nscrape right after a PUT (${CHANGED_SCRAPES}): peer median ${peer.changedScrapeMedian.toFixed(1)} ms (CPU ${peer.changedScrapeCpuMs.toFixed(1)}), ours ${ours.changedScrapeMedian.toFixed(1)} ms (CPU ${ours.changedScrapeCpuMs.toFixed(1)}): ${(ours.changedScrapeMedian / peer.changedScrapeMedian).toFixed(2)}× (CPU ${(ours.changedScrapeCpuMs / peer.changedScrapeCpuMs).toFixed(2)}×)`,
);
console.log(
  `\nratios (ours/peer): PUT ${(ours.putMedian / peer.putMedian).toFixed(3)}× (target ≤0.05), scrape ${(ours.scrapeMedian / peer.scrapeMedian).toFixed(2)}× (target ≤0.5; CPU ${(ours.scrapeCpuMs / peer.scrapeCpuMs).toFixed(2)}×), RSS ${(ours.rss / peer.rss).toFixed(2)}× (target ≤0.6), aggregating POST / peer PUT ${(ours.aggregateMedian / peer.putMedian).toFixed(3)}× (target ≤0.1)`,
);
