// Side-by-side benchmark under wrk (the load the issue names: 8 connections): Debian's webhook 2.8.0 (the peer)
// and ours on the same hooks file, in one run, alternating order per round. Prints a Markdown table of requests/s,
// p99 latency and the ratio ours/peer.
// Usage: node bench/webhook/wrk-bench.mjs [seconds-per-round=10] [connections=8] [rounds=2]
//        (build first: npm run build -w packages/webhook; needs Debian's webhook and wrk)
import { spawn, spawnSync } from "node:child_process";
import { createHmac } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const seconds = Number(process.argv[2] ?? 10);
const connections = Number(process.argv[3] ?? 8);
const rounds = Number(process.argv[4] ?? 2);
const hooksFile = fileURLToPath(new URL("hooks.json", import.meta.url));
const ours =
  process.env.WEBHOOK_BIN ?? fileURLToPath(new URL("../../packages/webhook/bin/webhook.js", import.meta.url));
const servers = {
  peer: { cmd: "/usr/bin/webhook", args: [], port: 19111 },
  ours: { cmd: process.execPath, args: [ours], port: 19112 },
};

const body = JSON.stringify({ token: "wrong", ref: "refs/heads/main", commits: [{ id: "abc123" }] });
const signature = `sha256=${createHmac("sha256", "bench-secret").update(body).digest("hex")}`;
const json = { "Content-Type": "application/json" };
const scenarios = {
  "unknown hook (404)": { path: "/hooks/no-such-hook", headers: json, expect: 404 },
  "rules not satisfied": { path: "/hooks/rejected", headers: json, expect: 200 },
  "hmac + /bin/true": {
    path: "/hooks/hmac",
    headers: { ...json, "X-Hub-Signature-256": signature },
    expect: 200,
  },
};

const dir = mkdtempSync(join(tmpdir(), "webhook-wrk-"));

function script(name, sc) {
  const file = join(dir, `${name.replace(/\W+/g, "-")}.lua`);
  const headers = Object.entries(sc.headers)
    .map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`)
    .join("\n");
  writeFileSync(file, `wrk.method = "POST"\nwrk.body = ${JSON.stringify(body)}\n${headers}\n`);
  return file;
}

/** The CPU time (user + system, all threads) a process has used, in µs, from /proc (clock ticks of 10 ms). */
function cpuMicros(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

function wrk(port, sc, file, pid) {
  const cpuBefore = cpuMicros(pid);
  const run = spawnSync(
    "wrk",
    [
      "-t2",
      `-c${connections}`,
      `-d${seconds}s`,
      "--latency",
      "-s",
      file,
      `http://127.0.0.1:${port}${sc.path}`,
    ],
    { encoding: "utf8", timeout: (seconds + 30) * 1000 },
  );
  if (run.status !== 0) throw new Error(`wrk failed: ${run.stderr}`);
  const cpu = cpuMicros(pid) - cpuBefore;
  const out = run.stdout;
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const total = Number(/(\d+) requests in/.exec(out)?.[1]);
  const p99 = /\s99%\s+([\d.]+)(us|ms|s)/.exec(out);
  const p99ms = p99 === null ? Number.NaN : Number(p99[1]) * { us: 0.001, ms: 1, s: 1000 }[p99[2]];
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  const errors = /Socket errors: (.*)/.exec(out)?.[1];
  // Every answer must be the expected one: all 404s, or no non-2xx at all.
  if ((sc.expect === 200 && non2xx !== 0) || (sc.expect !== 200 && non2xx !== total))
    throw new Error(`port ${port}: ${non2xx} of ${total} answers were not ${sc.expect}\n${out}`);
  if (errors !== undefined) throw new Error(`port ${port}: socket errors ${errors}`);
  return { rps, p99: p99ms, cpuPerRequest: cpu / total };
}

async function waitUp(port) {
  for (let i = 0; i < 200; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/`);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`server on ${port} did not start`);
}

const children = Object.fromEntries(
  Object.entries(servers).map(([who, { cmd, args, port }]) => [
    who,
    spawn(cmd, [...args, "-hooks", hooksFile, "-ip", "127.0.0.1", "-port", String(port)], {
      stdio: "ignore",
    }),
  ]),
);
try {
  for (const s of Object.values(servers)) await waitUp(s.port);
  for (const [name, sc] of Object.entries(scenarios)) {
    for (const s of Object.values(servers)) {
      const r = await fetch(`http://127.0.0.1:${s.port}${sc.path}`, {
        method: "POST",
        headers: sc.headers,
        body,
      });
      await r.arrayBuffer();
      if (r.status !== sc.expect) throw new Error(`${name}: port ${s.port} answered ${r.status}`);
    }
  }
  console.log(
    `load average before: ${(await import("node:os"))
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")}`,
  );
  console.log(
    "| scenario | peer req/s | ours req/s | ratio | peer p99 ms | ours p99 ms | peer CPU µs/req | ours CPU µs/req |",
  );
  console.log("|---|---|---|---|---|---|---|---|");
  for (const [name, sc] of Object.entries(scenarios)) {
    const file = script(name, sc);
    const runs = { peer: [], ours: [] };
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? ["peer", "ours"] : ["ours", "peer"];
      for (const who of order) runs[who].push(wrk(servers[who].port, sc, file, children[who].pid));
    }
    const avg = (xs, k) => xs.reduce((a, x) => a + x[k], 0) / xs.length;
    const [pr, or, pp, op] = [
      avg(runs.peer, "rps"),
      avg(runs.ours, "rps"),
      avg(runs.peer, "p99"),
      avg(runs.ours, "p99"),
    ];
    const [pc, oc] = [avg(runs.peer, "cpuPerRequest"), avg(runs.ours, "cpuPerRequest")];
    console.log(
      `| ${name} | ${pr.toFixed(0)} | ${or.toFixed(0)} | ${(or / pr).toFixed(2)}× | ${pp.toFixed(1)} | ${op.toFixed(1)} | ${pc.toFixed(1)} | ${oc.toFixed(1)} |`,
    );
  }
  console.log(
    `load average after: ${(await import("node:os"))
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")}`,
  );
} finally {
  for (const c of Object.values(children)) c.kill();
  rmSync(dir, { recursive: true, force: true });
}
