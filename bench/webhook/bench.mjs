// Side-by-side benchmark: Debian's webhook (the peer) and ours on the same hooks file, same machine, one run.
// Usage: node bench/webhook/bench.mjs [seconds-per-round] [connections]   (build first: npm run build -w packages/webhook)
import { spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";

const seconds = Number(process.argv[2] ?? 10);
const connections = Number(process.argv[3] ?? 10);
const hooksFile = fileURLToPath(new URL("hooks.json", import.meta.url));
// WEBHOOK_BIN runs another build as "ours" (a before/after comparison of the same scenarios against the same peer).
const ours =
  process.env.WEBHOOK_BIN ?? fileURLToPath(new URL("../../packages/webhook/bin/webhook.js", import.meta.url));
const servers = {
  peer: { cmd: "/usr/bin/webhook", args: [], port: 19101 },
  ours: { cmd: process.execPath, args: [ours], port: 19102 },
};

const body = JSON.stringify({ token: "wrong", ref: "refs/heads/main", commits: [{ id: "abc123" }] });
const signature = `sha256=${createHmac("sha256", "bench-secret").update(body).digest("hex")}`;
const scenarios = {
  rejected: { path: "/hooks/rejected", headers: { "content-type": "application/json" }, expect: 200 },
  "hmac /bin/true": {
    path: "/hooks/hmac",
    headers: { "content-type": "application/json", "x-hub-signature-256": signature },
    expect: 200,
  },
};

function start({ cmd, args, port }) {
  const child = spawn(cmd, [...args, "-hooks", hooksFile, "-ip", "127.0.0.1", "-port", String(port)], {
    stdio: "ignore",
  });
  return child;
}

async function waitUp(port) {
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/`);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`server on ${port} did not start`);
}

async function load(port, scenario) {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}${scenario.path}`,
    method: "POST",
    headers: scenario.headers,
    body,
    connections,
    duration: seconds,
  });
  const bad = result.non2xx + result.errors + result.timeouts;
  if (bad > 0) throw new Error(`${bad} failed requests on port ${port}`);
  return { rps: result.requests.average, p99: result.latency.p99 };
}

const children = Object.values(servers).map(start);
try {
  for (const s of Object.values(servers)) await waitUp(s.port);
  // Sanity: both answer the same status for each scenario.
  for (const [name, sc] of Object.entries(scenarios)) {
    for (const s of Object.values(servers)) {
      const r = await fetch(`http://127.0.0.1:${s.port}${sc.path}`, {
        method: "POST",
        headers: sc.headers,
        body,
      });
      if (r.status !== sc.expect) throw new Error(`${name}: port ${s.port} answered ${r.status}`);
    }
  }
  console.log(`| scenario | peer req/s | ours req/s | ratio | peer p99 ms | ours p99 ms |`);
  console.log(`|---|---|---|---|---|---|`);
  for (const [name, sc] of Object.entries(scenarios)) {
    // Two rounds in alternating order, so neither side always runs on a warmer machine.
    const runs = { peer: [], ours: [] };
    for (const order of [
      ["peer", "ours"],
      ["ours", "peer"],
    ]) {
      for (const who of order) runs[who].push(await load(servers[who].port, sc));
    }
    const avg = (xs, k) => xs.reduce((a, x) => a + x[k], 0) / xs.length;
    const [pr, or, pp, op] = [
      avg(runs.peer, "rps"),
      avg(runs.ours, "rps"),
      avg(runs.peer, "p99"),
      avg(runs.ours, "p99"),
    ];
    console.log(
      `| ${name} | ${pr.toFixed(0)} | ${or.toFixed(0)} | ${(or / pr).toFixed(2)}× | ${pp.toFixed(1)} | ${op.toFixed(1)} |`,
    );
  }
} finally {
  for (const c of children) c.kill();
}
