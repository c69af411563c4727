// The wire cases of test/support/wire-cases.ts beside Debian's /usr/bin/webhook 2.8.0: every answer's bytes (Date
// blanked) and whether the connection ended must be the peer's, besides what each case asserts.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before } from "node:test";
import { OUR_WEBHOOK as OURS, PEER_WEBHOOK as PEER } from "./support/binaries.js";
import { freePort } from "./support/free-port.js";
import { ServerGroup } from "./support/server-group.js";
import { type Exchange, exchange, HOOKS, wireTests } from "./support/wire-cases.js";

type Side = "peer" | "ours";
const servers = new ServerGroup();
const ports = new Map<Side, number>();
let root: string;

before(async () => {
  root = await mkdtemp(join(tmpdir(), "webhook-wire-"));
  const hooks = join(root, "hooks.json");
  await writeFile(hooks, JSON.stringify(HOOKS));
  for (const side of ["peer", "ours"] as const) {
    const port = await freePort();
    const argv = ["-hooks", hooks, "-ip", "127.0.0.1", "-port", String(port), "-verbose"];
    const [command, args] = side === "peer" ? [PEER, argv] : [process.execPath, [OURS, ...argv]];
    await servers.start(command, args, { ready: "serving hooks on" });
    ports.set(side, port);
  }
});

after(async () => {
  await servers.stopAll();
  await rm(root, { recursive: true, force: true });
});

async function sideBySide(ex: Exchange): Promise<{ text: string; closed: boolean }> {
  const [peer, ours] = await Promise.all([
    exchange(ports.get("peer") as number, ex),
    exchange(ports.get("ours") as number, ex),
  ]);
  assert.equal(ours.text, peer.text);
  assert.equal(ours.closed, peer.closed, `connection closed: peer ${peer.closed}, ours ${ours.closed}`);
  return ours;
}

wireTests(sideBySide);
