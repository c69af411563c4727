import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { FIXTURES, runCli } from "./support/run-cli.js";

// Our own Pushgateway (packages/pushgateway), started on a loopback port it picks itself.
const PUSHGATEWAY = fileURLToPath(new URL("../../../pushgateway/bin/pushgateway.js", import.meta.url));

/** How long the Pushgateway may take to print its listening address before the test fails. */
const START_DEADLINE_MS = 20_000;

/** Starts the Pushgateway; `child` is handed out at once so the caller's `after` hook stops it in every case. */
function startPushgateway(): { child: ChildProcess; ready: Promise<string> } {
  const child = spawn(process.execPath, [PUSHGATEWAY, "--web.listen-address=127.0.0.1:0"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const ready = new Promise<string>((resolve, reject) => {
    let log = "";
    const timer = setTimeout(
      () =>
        reject(new Error(`pushgateway printed no listening address within ${START_DEADLINE_MS} ms: ${log}`)),
      START_DEADLINE_MS,
    );
    const onData = (chunk: Buffer): void => {
      log += chunk.toString("utf8");
      const match = /address="?(127\.0\.0\.1:\d+)/.exec(log);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(`http://${match[1]}`);
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`pushgateway exited with ${code}: ${log}`));
    });
  });
  return { child, ready };
}

test("--format prometheus pushes to our Pushgateway and scrapes back with the grouping labels", async (t) => {
  assert.ok(existsSync(PUSHGATEWAY), `${PUSHGATEWAY} is missing`);
  const { child, ready } = startPushgateway();
  t.after(() => child.kill());
  const base = await ready;
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
