// Persistence under a large store, Debian's prometheus-pushgateway and ours side by side in one run (127.0.0.1):
// each is filled with GROUPS groups of SERIES series (1e6 by default) with --persistence.interval=2s, then for
// WINDOW seconds one group is pushed every 200 ms while /-/healthy is asked every 20 ms (its slowest answer is what
// the event loop was blocked for, at most), and the file's writes are timed (from a push to the rename that holds
// it). Then each is stopped, and restarted on its own file: the time until it answers /-/ready, and its RSS.
// Usage: node bench/pushgateway/persistence.mjs [--groups=1000] [--series=1000] [--window=30] [--only=ours|peer]
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const arg = (name, def) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? def;
const GROUPS = Number(arg("groups", 1000));
const SERIES = Number(arg("series", 1000));
const WINDOW = Number(arg("window", 30));
const ONLY = arg("only", "");
const OURS = fileURLToPath(new URL("../../packages/pushgateway/bin/pushgateway.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "pgw-persist-bench-"));

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

async function start(command, args) {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(command, [...args, `--web.listen-address=127.0.0.1:${port}`], { stdio: "ignore" });
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
  const { child, base } = await start(command, args);
  const t0 = performance.now();
  await fill(base);
  const fillS = (performance.now() - t0) / 1000;
  // Probe and push side by side for WINDOW seconds.
  let worst = 0;
  let slow = 0;
  const writes = [];
  let lastMtime = mtime(file);
  const end = performance.now() + WINDOW * 1000;
  const probe = (async () => {
    while (performance.now() < end) {
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
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  await Promise.all([probe, pusher]);
  const rssServing = rssMiB(child.pid);
  await stop(child);
  const size = statSync(file).size;
  const again = await start(command, args);
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
    fileMB: +(size / 1e6).toFixed(1),
    restartS: +restartS.toFixed(2),
    rssServing,
    rssRestarted,
  };
}

const rows = [];
try {
  if (ONLY !== "ours") rows.push(await measure("peer", "/usr/bin/prometheus-pushgateway", []));
  if (ONLY !== "peer") rows.push(await measure("ours", process.execPath, [OURS]));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`${GROUPS} groups x ${SERIES} series, --persistence.interval=2s, window ${WINDOW}s`);
console.table(rows);
const [peer, ours] = rows;
if (peer && ours) console.log(`restart ratio ours/peer: ${(ours.restartS / peer.restartS).toFixed(2)}x`);
