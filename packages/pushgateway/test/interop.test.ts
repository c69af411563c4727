import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Gauge, Pushgateway, Registry } from "prom-client";

const BIN = fileURLToPath(new URL("../../bin/pushgateway.js", import.meta.url));
let gateway: ChildProcess;
let base: string;
let hostPort: string;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Starts a program and resolves once a line of its stderr matches. */
function startUntil(command: string, args: string[], ready: RegExp): Promise<ChildProcess> {
  const child = spawn(command, args, { stdio: ["ignore", "ignore", "pipe"] });
  return new Promise((resolve, reject) => {
    let log = "";
    child.stderr?.on("data", (d: Buffer) => {
      log += d.toString();
      if (ready.test(log)) resolve(child);
    });
    child.on("error", reject);
    child.on("exit", (code) => reject(new Error(`${command} exited ${code}: ${log}`)));
  });
}

before(async () => {
  const port = await freePort();
  hostPort = `127.0.0.1:${port}`;
  base = `http://${hostPort}`;
  gateway = await startUntil(process.execPath, [BIN, `--web.listen-address=${hostPort}`], /Listening on/);
});

after(() => {
  gateway.kill("SIGTERM");
});

test("prom-client's Pushgateway pushes, adds and deletes", async () => {
  const registry = new Registry();
  new Gauge({ name: "node_job_done", help: "Done.", registers: [registry] }).set(3);
  const client = new Pushgateway(base, {}, registry);
  const pushed = await client.push({ jobName: "nodejob", groupings: { instance: "i1" } });
  assert.equal((pushed.resp as { statusCode?: number } | undefined)?.statusCode, 200);
  const extra = new Registry();
  new Gauge({ name: "node_job_extra", help: "Extra.", registers: [extra] }).set(4);
  await new Pushgateway(base, {}, extra).pushAdd({ jobName: "nodejob", groupings: { instance: "i1" } });
  let text = await (await fetch(`${base}/metrics`)).text();
  assert.match(text, /^node_job_done\{instance="i1",job="nodejob"\} 3$/m);
  assert.match(text, /^node_job_extra\{instance="i1",job="nodejob"\} 4$/m);
  await client.delete({ jobName: "nodejob", groupings: { instance: "i1" } });
  text = await (await fetch(`${base}/metrics`)).text();
  assert.doesNotMatch(text, /job="nodejob"/);
});

test("a real Prometheus scrapes the gateway with honor_labels: true", async () => {
  await fetch(`${base}/metrics/job/scraped/instance/box1`, {
    method: "PUT",
    body: "# TYPE batch_records gauge\nbatch_records 1234567\n",
  });
  const dir = await mkdtemp(join(tmpdir(), "pg-prometheus-"));
  const promPort = await freePort();
  const config = join(dir, "prometheus.yml");
  await writeFile(
    config,
    `global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: pushgateway\n    honor_labels: true\n    static_configs:\n      - targets: ["${hostPort}"]\n`,
  );
  const prometheus = await startUntil(
    "prometheus",
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${promPort}`,
    ],
    /Server is ready to receive web requests/,
  );
  try {
    const query = `http://127.0.0.1:${promPort}/api/v1/query?query=${encodeURIComponent("batch_records")}`;
    let result: { metric: Record<string, string>; value: [number, string] }[] = [];
    // Poll until the first scrape lands (bounded: 30 tries).
    for (let i = 0; i < 30 && result.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 500));
      const body = (await (await fetch(query)).json()) as { data: { result: typeof result } };
      result = body.data.result;
    }
    assert.equal(result.length, 1);
    assert.deepEqual(result[0]?.metric, { __name__: "batch_records", instance: "box1", job: "scraped" });
    assert.equal(result[0]?.value[1], "1234567");
    const up = `http://127.0.0.1:${promPort}/api/v1/query?query=${encodeURIComponent('up{job="pushgateway"}')}`;
    const upBody = (await (await fetch(up)).json()) as { data: { result: { value: [number, string] }[] } };
    assert.equal(upBody.data.result[0]?.value[1], "1");
  } finally {
    prometheus.kill("SIGTERM");
    await new Promise((r) => prometheus.once("exit", r));
    await rm(dir, { recursive: true, force: true });
  }
});
