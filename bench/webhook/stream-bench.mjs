// Large command output, side by side: Debian's webhook (the peer) returns it with include-command-output-in-response
// (its only way), ours the same way and with stream-command-output. Measures the time to the first byte and to the
// last, and the server's peak resident memory above its idle size (sampled every 20 ms from /proc/<pid>/status).
// Usage: node bench/webhook/stream-bench.mjs [MiB=256]   (build first: npm run build -w packages/webhook)
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const mib = Number(process.argv[2] ?? 256);
const bytes = mib * 1024 * 1024;
const ours = fileURLToPath(new URL("../../packages/webhook/bin/webhook.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "stream-bench-"));
const hooksFile = join(dir, "hooks.json");
const command = {
  "execute-command": "/usr/bin/head",
  "pass-arguments-to-command": [
    { source: "string", name: "-c" },
    { source: "string", name: String(bytes) },
    { source: "string", name: "/dev/zero" },
  ],
};
writeFileSync(
  hooksFile,
  JSON.stringify([
    { id: "buffered", "include-command-output-in-response": true, ...command },
    { id: "streamed", "stream-command-output": true, ...command },
  ]),
);

const rss = (pid) =>
  Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) * 1024;

async function run(label, cmd, args, path) {
  const port = 19300 + Math.floor(Math.random() * 500);
  const child = spawn(cmd, [...args, "-hooks", hooksFile, "-ip", "127.0.0.1", "-port", String(port)], {
    stdio: "ignore",
  });
  try {
    for (let i = 0; ; i++) {
      if (
        await fetch(`http://127.0.0.1:${port}/`).then(
          () => true,
          () => false,
        )
      )
        break;
      if (i > 200) throw new Error(`${label} did not start`);
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 500));
    const idle = rss(child.pid);
    let peak = idle;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rss(child.pid));
    }, 20);
    const start = performance.now();
    let first = 0;
    let got = 0;
    await new Promise((resolve, reject) => {
      const req = request(`http://127.0.0.1:${port}${path}`, (res) => {
        res.on("data", (c) => {
          if (got === 0) first = performance.now() - start;
          got += c.length;
        });
        res.on("end", resolve);
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end();
    });
    const last = performance.now() - start;
    clearInterval(sampler);
    if (got !== bytes) throw new Error(`${label}: ${got} bytes, not ${bytes}`);
    return { label, first, last, growth: peak - idle };
  } finally {
    child.kill("SIGKILL");
  }
}

const rows = [];
rows.push(await run("peer, include-command-output-in-response", "/usr/bin/webhook", [], "/hooks/buffered"));
rows.push(await run("ours, include-command-output-in-response", process.execPath, [ours], "/hooks/buffered"));
rows.push(await run("ours, stream-command-output", process.execPath, [ours], "/hooks/streamed"));
rmSync(dir, { recursive: true, force: true });
console.log(`| output | server, mode | first byte ms | last byte ms | peak memory growth MiB |`);
console.log(`|---|---|---|---|---|`);
for (const r of rows) {
  console.log(
    `| ${mib} MiB | ${r.label} | ${r.first.toFixed(0)} | ${r.last.toFixed(0)} | ${(r.growth / 2 ** 20).toFixed(1)} |`,
  );
}
