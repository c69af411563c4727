// Side-by-side benchmark of basic auth (issue 30 item 2): Debian's prometheus-pushgateway (1.5.1) and ours, each
// started in the same run with the same --web.config.file (one user, a bcrypt hash of cost 10, as `htpasswd -nBC 10`
// makes). Measures authenticated PUT throughput (CLIENTS clients × PUTS sequential PUTs each, every client its own
// group) and, while those pushes run, the latency of authenticated scrapes (one every 20 ms). The scraper runs on a
// thread of its own, as Prometheus is a process of its own: on the pushers' event loop a scrape's answer waited
// behind the bench's own handling of 20 pushers' answers, most of the time it measured (README, 2026-11-27 05:10).
// --scraper=shared puts it back on the pushers' event loop, as runs before that date measured. --rate=N paces the
// pushes to N per second in all (each client starts its i-th push on schedule), so both servers' scrapes are
// measured under the same load; without it every client pushes as fast as it is answered (closed loop: the faster
// server gets more pushes and the bench process more work).
// Usage: node bench/pushgateway/auth.mjs [--clients=20] [--puts=50] [--rounds=3] [--scraper=thread|shared] [--rate=N]
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";

/** Authenticated scrapes of `base`, one every 20 ms, until `stopped()`; their latencies in ms. */
async function scrapeLoop(base, auth, stopped) {
  const latencies = [];
  while (!stopped()) {
    const t = performance.now();
    const r = await fetch(`${base}/metrics`, { headers: { Authorization: auth } });
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`scrape ${r.status}`);
    latencies.push(performance.now() - t);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return latencies;
}

if (!isMainThread) {
  // The scraper thread: scrapes until the main thread says stop, then sends its latencies.
  let stop = false;
  parentPort.once("message", () => {
    stop = true;
  });
  parentPort.postMessage(await scrapeLoop(workerData.base, workerData.auth, () => stop));
  process.exit(0);
}

const arg = (name, def) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? def);
const CLIENTS = arg("clients", 20);
const PUTS = arg("puts", 50);
const ROUNDS = arg("rounds", 3);
const SHARED = process.argv.includes("--scraper=shared");
const RATE = arg("rate", 0);
const OURS = fileURLToPath(new URL("../../packages/pushgateway/bin/pushgateway.js", import.meta.url));
// bcryptjs from the pushgateway package (its dependency), to make the hash as htpasswd would.
const bcrypt = createRequire(new URL("../../packages/pushgateway/package.json", import.meta.url))("bcryptjs");

const dir = mkdtempSync(join(tmpdir(), "pg-auth-bench-"));
const config = join(dir, "web.yml");
writeFileSync(
  config,
  `basic_auth_users:\n  pusher: '${bcrypt.hashSync("s3cret", 10).replace(/^\$2b\$/, "$2y$")}'\n`,
);
const AUTH = `Basic ${Buffer.from("pusher:s3cret").toString("base64")}`;

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

async function start(command, args) {
  const port = await freePort();
  const child = spawn(
    command,
    [...args, `--web.listen-address=127.0.0.1:${port}`, `--web.config.file=${config}`],
    {
      stdio: "ignore",
    },
  );
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/-/healthy`, { headers: { Authorization: AUTH } })).ok)
        return { child, base: `http://127.0.0.1:${port}` };
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill("SIGKILL");
  throw new Error(`${command} did not become ready`);
}

const body = (c, i) => {
  let s = "# TYPE auth_bench gauge\n";
  for (let k = 0; k < 10; k++) s += `auth_bench{k="${k}"} ${c + i + k / 7}\n`;
  return s;
};
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

async function measure(name, command, args) {
  const { child, base } = await start(command, args);
  try {
    let pushing = true;
    let scraper;
    if (SHARED) {
      scraper = scrapeLoop(base, AUTH, () => !pushing);
    } else {
      const worker = new Worker(fileURLToPath(import.meta.url), { workerData: { base, auth: AUTH } });
      scraper = new Promise((resolve, reject) => {
        worker.once("message", resolve);
        worker.once("error", reject);
      });
      scraper.stop = () => worker.postMessage("stop");
    }
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        for (let i = 0; i < PUTS; i++) {
          if (RATE > 0) {
            const due = t0 + ((i * CLIENTS + c) / RATE) * 1000 - performance.now();
            if (due > 0) await new Promise((resolve) => setTimeout(resolve, due));
          }
          const r = await fetch(`${base}/metrics/job/auth/instance/c${c}`, {
            method: "PUT",
            body: body(c, i),
            headers: { Authorization: AUTH },
          });
          await r.arrayBuffer();
          if (r.status !== 200) throw new Error(`${name}: PUT ${r.status}`);
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    pushing = false;
    scraper.stop?.();
    const scrapes = await scraper;
    return {
      name,
      rps: (CLIENTS * PUTS) / seconds,
      scrapeMedian: quantile(scrapes, 0.5),
      scrapeMax: Math.max(...scrapes),
      scrapes: scrapes.length,
    };
  } finally {
    child.kill("SIGTERM");
  }
}

try {
  console.log(
    `${CLIENTS} clients × ${PUTS} authenticated PUTs (bcrypt cost 10), scrapes every 20 ms meanwhile (scraper: ${SHARED ? "on the pushers' event loop" : "own thread"}${RATE > 0 ? `; pushes paced at ${RATE}/s` : ""})\n`,
  );
  console.log("| round | server | PUT/s | scrape median ms | scrape max ms | scrapes |");
  console.log("|---|---|---|---|---|---|");
  for (let round = 1; round <= ROUNDS; round++) {
    const peer = await measure("prometheus-pushgateway 1.5.1", "/usr/bin/prometheus-pushgateway", [
      "--persistence.file=",
    ]);
    const ours = await measure("packages/pushgateway", process.execPath, [OURS]);
    for (const r of [peer, ours])
      console.log(
        `| ${round} | ${r.name} | ${r.rps.toFixed(0)} | ${r.scrapeMedian.toFixed(1)} | ${r.scrapeMax.toFixed(1)} | ${r.scrapes} |`,
      );
    console.log(
      `| ${round} | ratio ours/peer | ${(ours.rps / peer.rps).toFixed(2)}× (target ≥1.0) | ${(ours.scrapeMedian / peer.scrapeMedian).toFixed(2)}× | ours max ${ours.scrapeMax <= 100 ? "≤" : ">"} 100 ms | |`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
