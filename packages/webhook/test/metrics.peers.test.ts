// The -metrics scrape after traffic of every kind, checked by Debian's promtool (package prometheus): the text
// format Prometheus reads, and its lint rules.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { after, before, test } from "node:test";
import { type MetricsServer, startMetricsServer } from "./support/metrics-server.js";

const PROMTOOL = "/usr/bin/promtool";
let on: MetricsServer;

before(async () => {
  on = await startMetricsServer({ metrics: true });
});

after(async () => {
  await on?.stop();
});

/** `promtool check metrics` on `text`: its exit code and what it said. */
function promtool(text: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(PROMTOOL, ["check", "metrics"], { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (out += c.toString()));
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
    child.stdin.end(text);
  });
}

test("promtool check metrics accepts the scrape, lint included", async () => {
  for (const path of ["/hooks/ok", "/hooks/fail", "/hooks/rules", "/hooks/nope", "/hooks/get-only"])
    await fetch(`${on.base}${path}`, { method: "POST" });
  const text = await (await fetch(`${on.base}/metrics`)).text();
  assert.match(text, /^webhook_hook_requests_total\{hook="ok",outcome="executed"\} 1$/m);
  assert.deepEqual(await promtool(text), { code: 0, out: "" });
});
