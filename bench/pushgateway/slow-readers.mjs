// 20 scrapers that never read, Debian's prometheus-pushgateway and ours side by side in one run (127.0.0.1): each
// is filled with GROUPS x SERIES series, then STALLED connections each send `GET /metrics` and read nothing; for
// WINDOW seconds /-/healthy and /-/ready are asked every 50 ms (their slowest answers) and the server's RSS is read
// before and after. Usage: node bench/pushgateway/slow-readers.mjs [--groups=100] [--series=1000] [--stalled=20]
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { fileURLToPath } from "node:url";

const arg = (name, def) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? def);
const GROUPS = arg("groups", 100);
const SERIES = arg("series", 1000);
const STALLED = arg("stalled", 20);
const WINDOW = arg("window", 10);
const OURS = fileURLToPath(new URL("../../packages/pushgateway/bin/pushgateway.js", import.meta.url));

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
const rssMiB = (pid) =>
  Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024);

async function measure(name, command, extra) {
  const port = await freePort();
  const child = spawn(command, [...extra, `--web.listen-address=127.0.0.1:${port}`], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  child.stderr.on("data", (d) => {
    log += d;
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`${base}/-/ready`)).ok) break;
    } catch {}
    await new Promise((r) => setTimeout(r, 50));
  }
  for (let g = 0; g < GROUPS; g++) {
    let body = "# TYPE slow_metric gauge\n";
    for (let i = 0; i < SERIES; i++) body += `slow_metric{series="s${i}",padding="${"p".repeat(20)}"} ${i}\n`;
    await (await fetch(`${base}/metrics/job/slow/instance/i${g}`, { method: "PUT", body })).text();
  }
  const rssBefore = rssMiB(child.pid);
  const sockets = Array.from({ length: STALLED }, () => {
    const s = connect(port, "127.0.0.1");
    s.on("error", () => {});
    s.write("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
    s.pause();
    return s;
  });
  const worst = { healthy: 0, ready: 0 };
  let over100 = 0;
  const end = performance.now() + WINDOW * 1000;
  while (performance.now() < end) {
    for (const path of ["healthy", "ready"]) {
      const t = performance.now();
      await (await fetch(`${base}/-/${path}`)).text();
      const ms = performance.now() - t;
      worst[path] = Math.max(worst[path], ms);
      if (ms > 100) over100++;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const rssAfter = rssMiB(child.pid);
  for (const s of sockets) s.destroy();
  child.kill("SIGTERM");
  await new Promise((r) => child.once("exit", r));
  return {
    name,
    healthyWorstMs: Math.round(worst.healthy),
    readyWorstMs: Math.round(worst.ready),
    probesOver100ms: over100,
    rssBeforeMiB: rssBefore,
    rssStalledMiB: rssAfter,
    maxListenersWarning: /MaxListenersExceededWarning/.test(log),
  };
}

const rows = [
  await measure("peer", "/usr/bin/prometheus-pushgateway", ["--persistence.file="]),
  await measure("ours", process.execPath, [OURS]),
];
console.log(`${GROUPS * SERIES} series, ${STALLED} stalled scrapers, ${WINDOW}s of probes`);
console.table(rows);
