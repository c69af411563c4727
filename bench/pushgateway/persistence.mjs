// Persistence under a large store, Debian's prometheus-pushgateway and ours side by side in one run (127.0.0.1):
// each is filled with GROUPS groups of SERIES series (1e6 by default) with --persistence.interval=2s, then for
// WINDOW seconds one group is pushed every 200 ms while /-/healthy is asked every 20 ms (its slowest answer is what
// the event loop was blocked for, at most), and the file's writes are timed (from a push to the rename that holds
// it). Then each is stopped, and restarted on its own file: the time until it answers /-/ready, and its RSS.
// In ours, event-loop-probe.mjs records the event loop's delay (monitorEventLoopDelay, max) during each write.
// --load=quiet instead pushes one marker every 2 s and asks nothing else (the write alone); --load=scrapes adds a
// push of a 1000-series group every 200 ms and a scrape of the whole /metrics every 5 s.
// Usage: node bench/pushgateway/persistence.mjs [--groups=1000] [--series=1000] [--window=30] [--only=ours|peer]
//   [--load=probes|quiet|scrapes]; env PG_BENCH_BIN, PG_BENCH_NODE_ARGS, PG_BENCH_TRACE (below)
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const arg = (name, def) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? def;
const GROUPS = Number(arg("groups", 1000));
const SERIES = Number(arg("series", 1000));
const WINDOW = Number(arg("window", 30));
const ONLY = arg("only", "");
const LOAD = arg("load", "probes");
const PROBE = fileURLToPath(new URL("./event-loop-probe.mjs", import.meta.url));
// PG_BENCH_BIN: another launcher or build to measure as ours (A/B); PG_BENCH_TRACE: a file for ours' stdout and
// stderr (with PG_BENCH_NODE_ARGS=--trace-gc, what each collection was).
const OURS =
  process.env.PG_BENCH_BIN ??
  fileURLToPath(new URL("../../packages/pushgateway/bin/pushgateway.js", import.meta.url));
const NODE_ARGS = (process.env.PG_BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);
const TRACE = process.env.PG_BENCH_TRACE;
const dir = mkdtempSync(join(tmpdir(), "pgw-persist-bench-"));

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

async function start(command, args, env = {}) {
  const port = await freePort();
  const started = performance.now();
  const traceFd = TRACE && command === process.execPath ? openSync(TRACE, "a") : undefined;
  const child = spawn(command, [...args, `--web.listen-address=127.0.0.1:${port}`], {
    stdio: traceFd === undefined ? "ignore" : ["ignore", traceFd, traceFd],
    env: { ...process.env, ...env },
  });
  if (traceFd !== undefined) closeSync(traceFd);
  for (let i = 0; i < 6000; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/-/ready`)).ok)
        return { child, base: `http://127.0.0.1:${port}`, readyMs: performance.now() - started };
    } catch {}
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill("SIGKILL");
  throw new Error(`${command} did not become ready`);
}

const body = (g) => {
  let s = "# TYPE bench_metric gauge\n";
  for (let i = 0; i < SERIES; i++) s += `bench_metric{shard="${i}",kind="k${i % 7}"} ${g + i / 7}\n`;
  return s;
};

async function fill(base) {
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < GROUPS) {
        const g = next++;
        const r = await fetch(`${base}/metrics/job/bench/instance/i${g}`, { method: "PUT", body: body(g) });
        if (!r.ok) throw new Error(`fill failed: ${r.status} ${await r.text()}`);
      }
    }),
  );
}

const rssMiB = (pid) =>
  Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024);
const mtime = (file) => {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
};
const stop = (child) =>
  new Promise((resolve) => {
    child.once("exit", resolve);
    child.kill("SIGTERM");
  });

async function measure(name, command, extra) {
  const file = join(dir, `${name}.data`);
  const args = [
    ...extra,
    `--persistence.file=${file}`,
    "--persistence.interval=2s",
    "--push.disable-consistency-check",
  ];
  const eldLog = join(dir, `${name}.eld`);
  const env = name === "ours" ? { NODE_OPTIONS: `--import=${PROBE}`, PGW_ELD_LOG: eldLog } : {};
  const { child, base } = await start(command, args, env);
  const t0 = performance.now();
  await fill(base);
  const fillS = (performance.now() - t0) / 1000;
  const eldSkip = existsSync(eldLog) ? readFileSync(eldLog, "utf8").trim().split("\n").length : 0;
  // Probe and push side by side for WINDOW seconds.
  let worst = 0;
  let slow = 0;
  const writes = [];
  let lastMtime = mtime(file);
  const end = performance.now() + WINDOW * 1000;
  const probe = (async () => {
    while (LOAD !== "quiet" && performance.now() < end) {
      const t = performance.now();
      await (await fetch(`${base}/-/healthy`)).text();
      const ms = performance.now() - t;
      worst = Math.max(worst, ms);
      if (ms > 100) slow++;
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const pusher = (async () => {
    let n = 0;
    const pending = [];
    while (performance.now() < end) {
      const at = Date.now();
      await (
        await fetch(`${base}/metrics/job/marker/n/${n++}`, { method: "PUT", body: "marker 1\n" })
      ).text();
      pending.push(at);
      const m = mtime(file);
      if (m > lastMtime) {
        // A rename: every push answered before the write started is in it; the oldest pending one bounds the lag.
        lastMtime = m;
        const covered = pending.filter((p) => p < m);
        if (covered.length > 0) writes.push(m - Math.min(...covered));
        pending.splice(0, covered.length);
      }
      await new Promise((r) => setTimeout(r, LOAD === "quiet" ? 2000 : 200));
    }
  })();
  const groupPusher = (async () => {
    for (let g = 0; LOAD === "scrapes" && performance.now() < end; g++) {
      const r = await fetch(`${base}/metrics/job/bench/instance/i${g % GROUPS}`, {
        method: "PUT",
        body: body(g),
      });
      await r.text();
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  let scrapes = 0;
  const scraper = (async () => {
    while (LOAD === "scrapes" && performance.now() < end) {
      await (await fetch(`${base}/metrics`)).arrayBuffer();
      scrapes++;
      await new Promise((r) => setTimeout(r, 5000));
    }
  })();
  await Promise.all([probe, pusher, groupPusher, scraper]);
  // Ours: the event loop's delay per write (the first one, of the fill, included).
  const eld = existsSync(eldLog)
    ? readFileSync(eldLog, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l))
        // The writes during the fill also count the fill's pushes: only those of the window are reported.
        .slice(eldSkip + 1)
    : [];
  if (eld.length > 0)
    console.error(
      `${name} per write (event-loop delay max; longest timer gap: ran / waited for a CPU / in GC): ${eld
        .map(
          (w) =>
            `${w.maxMs} (${w.gapMs}: ${w.gapRunMs} / ${w.gapWaitMs} / ${w.gapGcMs}; on a CPU at most ${w.busiestMs})`,
        )
        .join(", ")} ms`,
    );
  const rssServing = rssMiB(child.pid);
  await stop(child);
  const size = statSync(file).size;
  const again = await start(command, args);
  const during = eld.map((w) => w.maxMs);
  const restartS = again.readyMs / 1000;
  const rssRestarted = rssMiB(again.child.pid);
  await stop(again.child);
  return {
    name,
    fillS,
    healthyWorstMs: Math.round(worst),
    healthySlowOver100ms: slow,
    pushToFileMaxS: writes.length ? Math.max(...writes) / 1000 : undefined,
    writesSeen: writes.length,
    ...(eld.length > 0
      ? {
          writes: eld.length,
          writeS: `${(Math.min(...eld.map((w) => w.writeMs)) / 1000).toFixed(1)}-${(Math.max(...eld.map((w) => w.writeMs)) / 1000).toFixed(1)}`,
          eldMaxPerWriteMs: `${Math.min(...during)}-${Math.max(...during)}`,
          busiestMs: Math.max(...eld.map((w) => w.busiestMs)),
        }
      : {}),
    ...(LOAD === "scrapes" ? { scrapes } : {}),
    fileMB: +(size / 1e6).toFixed(1),
    restartS: +restartS.toFixed(2),
    rssServing,
    rssRestarted,
  };
}

const rows = [];
try {
  if (ONLY !== "ours") rows.push(await measure("peer", "/usr/bin/prometheus-pushgateway", []));
  if (ONLY !== "peer") rows.push(await measure("ours", process.execPath, [...NODE_ARGS, OURS]));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(
  `${GROUPS} groups x ${SERIES} series, --persistence.interval=2s, window ${WINDOW}s, load ${LOAD}`,
);
console.table(rows);
const [peer, ours] = rows;
if (peer && ours) console.log(`restart ratio ours/peer: ${(ours.restartS / peer.restartS).toFixed(2)}x`);
