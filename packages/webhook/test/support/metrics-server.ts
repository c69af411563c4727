// A server started with -metrics and hooks that end in every outcome of webhook_hook_requests_total, for
// test/metrics.test.ts and test/metrics.peers.test.ts.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OUR_WEBHOOK } from "./binaries.js";
import { freePort } from "./free-port.js";
import { ServerGroup, type StartedServer } from "./server-group.js";

export const METRICS_HOOKS = [
  { id: "ok", "execute-command": "/bin/true", "include-command-output-in-response": true },
  { id: "fail", "execute-command": "/bin/false", "include-command-output-in-response": true },
  {
    id: "slow",
    "execute-command": "/bin/sleep",
    "pass-arguments-to-command": [{ source: "string", name: "30" }],
    "include-command-output-in-response": true,
    timeout: 2,
  },
  {
    id: "busy",
    "execute-command": "/bin/sleep",
    "pass-arguments-to-command": [{ source: "string", name: "1" }],
    "include-command-output-in-response": true,
    "maximum-concurrent-executions": 1,
  },
  {
    id: "rules",
    "execute-command": "/bin/true",
    "trigger-rule": { match: { type: "value", value: "yes", parameter: { source: "header", name: "X-T" } } },
  },
  {
    id: "sig",
    "execute-command": "/bin/true",
    "trigger-rule": {
      match: { type: "payload-hmac-sha256", secret: "s", parameter: { source: "header", name: "X-Sig" } },
    },
  },
  { id: "get-only", "execute-command": "/bin/true", "http-methods": ["GET"] },
];

/** A running server with -metrics; `stop` ends it and removes its files. */
export interface MetricsServer {
  readonly base: string;
  readonly dir: string;
  readonly server: StartedServer;
  stop(): Promise<void>;
}

/** Starts ours with the hooks above, `-metrics` (unless `metrics` is false) and `-max-body-bytes 64`. */
export async function startMetricsServer(options: { metrics: boolean }): Promise<MetricsServer> {
  const dir = await mkdtemp(join(tmpdir(), "webhook-metrics-"));
  const group = new ServerGroup();
  try {
    await writeFile(join(dir, "hooks.json"), JSON.stringify(METRICS_HOOKS));
    const port = await freePort();
    const args = ["-hooks", join(dir, "hooks.json"), "-ip", "127.0.0.1", "-port", String(port)];
    args.push("-verbose", "-max-body-bytes", "64", ...(options.metrics ? ["-metrics"] : []));
    const server = await group.start(process.execPath, [OUR_WEBHOOK, ...args], { ready: "serving hooks on" });
    return {
      base: `http://127.0.0.1:${port}`,
      dir,
      server,
      stop: async () => {
        await group.stopAll();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await group.stopAll();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/** The value of one sample in a scrape (`name{labels}` exactly as written), or undefined when absent. */
export function sample(text: string, series: string): number | undefined {
  for (const line of text.split("\n")) {
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  }
  return undefined;
}
