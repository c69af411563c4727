import assert from "node:assert/strict";
import { test } from "node:test";
import { HookMetrics, UNKNOWN_HOOK } from "./metrics.js";

test("requests, running commands, durations, hooks loaded and reload failures appear in the scrape", async () => {
  let loaded = 3;
  const metrics = new HookMetrics({ hooksLoaded: () => loaded });
  metrics.request("deploy", "executed");
  metrics.request("deploy", "executed");
  metrics.request(UNKNOWN_HOOK, "not_found");
  const ended = metrics.commandStarted("deploy");
  let text = (await metrics.render()).body;
  assert.match(text, /^webhook_hook_requests_total\{hook="deploy",outcome="executed"\} 2$/m);
  assert.match(text, /^webhook_hook_requests_total\{hook="\(unknown\)",outcome="not_found"\} 1$/m);
  assert.match(text, /^webhook_hook_commands_running\{hook="deploy"\} 1$/m);
  assert.match(text, /^webhook_hooks_loaded 3$/m);
  ended();
  metrics.reloadFailed();
  loaded = 2;
  text = (await metrics.render()).body;
  assert.match(text, /^webhook_hook_commands_running\{hook="deploy"\} 0$/m);
  assert.match(text, /^webhook_hook_command_duration_seconds_count\{hook="deploy"\} 1$/m);
  assert.match(text, /^# TYPE webhook_hook_command_duration_seconds histogram$/m);
  assert.match(text, /^webhook_hooks_loaded 2$/m);
  assert.match(text, /^webhook_hooks_reload_failures_total 1$/m);
});

test("prom-client's *_total gauges, which promtool's lint refuses, are left out; their labelled families stay", async () => {
  const { body, contentType } = await new HookMetrics({ hooksLoaded: () => 0 }).render();
  assert.equal(contentType, "text/plain; version=0.0.4; charset=utf-8");
  assert.doesNotMatch(body, /nodejs_active_(handles|requests|resources)_total/);
  assert.match(body, /^# TYPE nodejs_active_handles gauge$/m);
  assert.match(body, /^process_cpu_seconds_total \d/m);
});
