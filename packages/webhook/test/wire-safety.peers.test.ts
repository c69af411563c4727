// The request-smuggling and starvation battery (test/support/wire-safety-cases.ts) on our server and Debian's
// /usr/bin/webhook 2.8.0 side by side: every answer must be the peer's, and each command must run as often as the
// peer's does.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe } from "node:test";
import { OUR_WEBHOOK as OURS, PEER_WEBHOOK as PEER } from "./support/binaries.js";
import { freePort } from "./support/free-port.js";
import { ServerGroup } from "./support/server-group.js";
import { exchange, safetyHooks, safetyTests } from "./support/wire-safety-cases.js";

type Side = "peer" | "ours";
const servers = new ServerGroup();
const ports = new Map<Side, number>();
let root: string;

before(async () => {
  root = await mkdtemp(join(tmpdir(), "webhook-safety-"));
  await writeFile(join(root, "hooks.json"), JSON.stringify(safetyHooks()));
  for (const side of ["peer", "ours"] as const) {
    const port = await freePort();
    const argv = ["-hooks", join(root, "hooks.json"), "-ip", "127.0.0.1", "-port", String(port), "-verbose"];
    const [command, args] = side === "peer" ? [PEER, argv] : [process.execPath, [OURS, ...argv]];
    await servers.start(command, args, {
      ready: "serving hooks on",
      env: { ...process.env, RAN_FILE: join(root, `${side}.ran`) },
    });
    ports.set(side, port);
  }
});

after(async () => {
  await servers.stopAll();
  await rm(root, { recursive: true, force: true });
});

function sideOf(side: Side) {
  return () => ({
    port: ports.get(side) as number,
    runs: async () =>
      (await readFile(join(root, `${side}.ran`), "utf8").catch(() => "")).split("\n").length - 1,
  });
}

// The peer against the answers recorded from it (so a change of peer shows), then ours compared with the peer live.
describe("peer", () => safetyTests(sideOf("peer")));
describe("ours", () =>
  safetyTests(sideOf("ours"), (_name, data) => exchange(ports.get("peer") as number, data)));
