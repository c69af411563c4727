// The request-smuggling and starvation battery (test/support/wire-safety-cases.ts) on our server alone, against the
// answers Debian's webhook 2.8.0 gave (compared live in test/wire-safety.peers.test.ts).
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before } from "node:test";
import { OUR_WEBHOOK as OURS } from "./support/binaries.js";
import { freePort } from "./support/free-port.js";
import { ServerGroup } from "./support/server-group.js";
import { safetyHooks, safetyTests } from "./support/wire-safety-cases.js";

const servers = new ServerGroup();
let root: string;
let port: number;

before(async () => {
  root = await mkdtemp(join(tmpdir(), "webhook-safety-"));
  await writeFile(join(root, "hooks.json"), JSON.stringify(safetyHooks()));
  port = await freePort();
  const argv = ["-hooks", join(root, "hooks.json"), "-ip", "127.0.0.1", "-port", String(port), "-verbose"];
  await servers.start(process.execPath, [OURS, ...argv], {
    ready: "serving hooks on",
    env: { ...process.env, RAN_FILE: join(root, "ran") },
  });
});

after(async () => {
  await servers.stopAll();
  await rm(root, { recursive: true, force: true });
});

async function runs(): Promise<number> {
  return (await readFile(join(root, "ran"), "utf8").catch(() => "")).split("\n").length - 1;
}

safetyTests(() => ({ port, runs }));
