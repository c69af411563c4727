// The request-smuggling and starvation battery (test/support/wire-safety-cases.ts) on our server alone, against the
// answers Debian's webhook 2.8.0 gave (compared live in test/wire-safety.peers.test.ts).

import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { OUR_WEBHOOK as OURS } from "./support/binaries.js";
import { freePort } from "./support/free-port.js";
import { ServerGroup } from "./support/server-group.js";
import { safetyHooks, safetyTests, unreadPipeline } from "./support/wire-safety-cases.js";

const servers = new ServerGroup();
let root: string;
let port: number;
let pid: number;

before(async () => {
  root = await mkdtemp(join(tmpdir(), "webhook-safety-"));
  await writeFile(join(root, "hooks.json"), JSON.stringify(safetyHooks()));
  port = await freePort();
  const argv = ["-hooks", join(root, "hooks.json"), "-ip", "127.0.0.1", "-port", String(port), "-verbose"];
  const { child } = await servers.start(process.execPath, [OURS, ...argv], {
    ready: "serving hooks on",
    env: { ...process.env, RAN_FILE: join(root, "ran") },
  });
  pid = child.pid as number;
});

after(async () => {
  await servers.stopAll();
  await rm(root, { recursive: true, force: true });
});

async function runs(): Promise<number> {
  return (await readFile(join(root, "ran"), "utf8").catch(() => "")).split("\n").length - 1;
}

safetyTests(() => ({ port, runs }));

test("wire safety: pipelined requests whose answers are never read leave memory flat", async () => {
  // Before the read-side back-pressure the server read on and buffered answers without limit (949 MiB in 11 s, about 90
  // MiB in these 4 s); it now stops reading while an answer waits, as Go's server does.
  const { rssGrowth } = await unreadPipeline(port, { pid, warmupMs: 15_000, ms: 4000 });
  assert.ok(rssGrowth < 8 * 2 ** 20, `resident memory grew by ${(rssGrowth / 2 ** 20).toFixed(1)} MiB`);
});
