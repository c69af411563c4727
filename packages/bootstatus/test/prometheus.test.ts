import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { FIXTURES, runCli } from "./run-cli.js";

// Our own Pushgateway (packages/pushgateway), started on a loopback port it picks itself.
const PUSHGATEWAY = fileURLToPath(new URL("../../../pushgateway/bin/pushgateway.js", import.meta.url));

function startPushgateway(): Promise<{ child: ChildProcess; base: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [PUSHGATEWAY, "--web.listen-address=127.0.0.1:0"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let log = "";
    const onData = (chunk: Buffer): void => {
      log += chunk.toString("utf8");
      const match = /address="?(127\.0\.0\.1:\d+)/.exec(log);
      if (match?.[1] !== undefined) resolve({ child, base: `http://${match[1]}` });
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("error", reject);
    child.on("exit", (code) => reject(new Error(`pushgateway exited with ${code}: ${log}`)));
  });
}

test("--format prometheus pushes to our Pushgateway and scrapes back with the grouping labels", async (t) => {
  assert.ok(existsSync(PUSHGATEWAY), `${PUSHGATEWAY} is missing`);
  const { child, base } = await startPushgateway();
  t.after(() => child.kill());
  const run = await runCli(["--format", "prometheus", "--root", path.join(FIXTURES, "degraded-done/root")]);
  assert.equal(run.code, 2, run.stderr);
  const push = await fetch(`${base}/metrics/job/bootstatus/instance/vm1`, {
    method: "PUT",
    headers: { "content-type": "text/plain; version=0.0.4" },
    body: run.stdout,
  });
  assert.equal(push.status, 200, await push.text());
  const scraped = await (await fetch(`${base}/metrics`)).text();
  const samples = scraped.split("\n").filter((l) => l.startsWith("bootstatus_"));
  assert.deepEqual(samples.sort(), [
    'bootstatus_errors{instance="vm1",job="bootstatus"} 0',
    'bootstatus_info{boot_status_code="enabled-by-generator",extended_status="degraded done",instance="vm1",job="bootstatus",status="done"} 1',
    'bootstatus_last_update_timestamp_seconds{instance="vm1",job="bootstatus"} 128.678',
    'bootstatus_recoverable_errors{instance="vm1",job="bootstatus",level="CRITICAL"} 1',
    'bootstatus_recoverable_errors{instance="vm1",job="bootstatus",level="DEPRECATED"} 1',
    'bootstatus_recoverable_errors{instance="vm1",job="bootstatus",level="ERROR"} 2',
    'bootstatus_recoverable_errors{instance="vm1",job="bootstatus",level="WARNINGS"} 1',
  ]);
});
