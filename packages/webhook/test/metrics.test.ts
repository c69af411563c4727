// -metrics through the real server: every outcome counted under its hook, unknown ids under one
// label value, commands running and their durations, hooks loaded, reload failures; off by default. The scrape is
// checked with promtool in test/metrics.peers.test.ts.
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type MetricsServer, sample, startMetricsServer } from "./support/metrics-server.js";

let on: MetricsServer;
let off: MetricsServer;

before(async () => {
  on = await startMetricsServer({ metrics: true });
  off = await startMetricsServer({ metrics: false });
});

after(async () => {
  await on?.stop();
  await off?.stop();
});

async function scrape(): Promise<string> {
  const res = await fetch(`${on.base}/metrics`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  return res.text();
}

const requests = (hook: string, outcome: string) =>
  `webhook_hook_requests_total{hook="${hook}",outcome="${outcome}"}`;

test("without -metrics, /metrics is what upstream answers: 404", async () => {
  const res = await fetch(`${off.base}/metrics`);
  assert.equal(res.status, 404);
  assert.equal(await res.text(), "404 page not found\n");
});

test("each request is counted under its hook and outcome; unknown ids under one label value", async () => {
  const post = (path: string, init: RequestInit = {}) =>
    fetch(`${on.base}${path}`, { method: "POST", ...init });
  assert.equal((await post("/hooks/ok")).status, 200);
  assert.equal((await post("/hooks/fail")).status, 500);
  assert.equal((await post("/hooks/rules", { headers: { "X-T": "no" } })).status, 200);
  assert.equal((await post("/hooks/sig", { headers: { "X-Sig": "sha256=00" }, body: "x" })).status, 500);
  assert.equal((await post("/hooks/get-only")).status, 405);
  assert.equal((await post("/hooks/ok", { body: "x".repeat(100) })).status, 413);
  for (const id of ["scan-1", "scan-2", "wp-login.php"])
    assert.equal((await post(`/hooks/${id}`)).status, 404);
  const [first, second] = await Promise.all([post("/hooks/busy"), post("/hooks/busy")]);
  assert.deepEqual([first.status, second.status].sort(), [200, 429]);
  const text = await scrape();
  assert.equal(sample(text, requests("ok", "executed")), 1);
  assert.equal(sample(text, requests("fail", "command_failed")), 1);
  assert.equal(sample(text, requests("rules", "rules_not_satisfied")), 1);
  assert.equal(sample(text, requests("sig", "rules_error")), 1);
  assert.equal(sample(text, requests("get-only", "method_not_allowed")), 1);
  assert.equal(sample(text, requests("ok", "body_too_large")), 1);
  assert.equal(sample(text, requests("(unknown)", "not_found")), 3);
  assert.equal(sample(text, requests("busy", "too_many_requests")), 1);
  assert.equal(sample(text, requests("busy", "executed")), 1);
  assert.doesNotMatch(text, /scan-1|wp-login/);
  assert.equal(sample(text, 'webhook_hook_command_duration_seconds_count{hook="busy"}'), 1);
  assert.ok((sample(text, 'webhook_hook_command_duration_seconds_sum{hook="busy"}') ?? 0) >= 0.9);
  assert.equal(sample(text, "webhook_hooks_loaded"), 7);
  assert.match(text, /^process_cpu_seconds_total \d/m);
  assert.match(text, /^nodejs_heap_size_used_bytes \d/m);
});

test("a command running shows in the gauge; one stopped by its timeout counts as timeout", async () => {
  const slow = fetch(`${on.base}/hooks/slow`, { method: "POST" });
  let running: number | undefined;
  for (let i = 0; i < 100 && running !== 1; i++) {
    running = sample(await scrape(), 'webhook_hook_commands_running{hook="slow"}');
    if (running !== 1) await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal(running, 1);
  assert.equal((await slow).status, 500);
  const text = await scrape();
  assert.equal(sample(text, 'webhook_hook_commands_running{hook="slow"}'), 0);
  assert.equal(sample(text, requests("slow", "timeout")), 1);
});

test("a reload that fails is counted, and the hooks loaded stay", async () => {
  assert.equal(sample(await scrape(), "webhook_hooks_reload_failures_total"), 0);
  await writeFile(join(on.dir, "hooks.json"), "[{");
  on.server.child.kill("SIGHUP");
  let failures: number | undefined;
  for (let i = 0; i < 200 && failures !== 1; i++) {
    failures = sample(await scrape(), "webhook_hooks_reload_failures_total");
    if (failures !== 1) await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal(failures, 1);
  assert.equal(sample(await scrape(), "webhook_hooks_loaded"), 7);
});

test("/metrics answers GET and HEAD only", async () => {
  const res = await fetch(`${on.base}/metrics`, { method: "POST" });
  assert.equal(res.status, 405);
  assert.equal(res.headers.get("allow"), "GET, HEAD");
});
