// Our server alone on the wire cases of test/support/wire-cases.ts: each answer must have Go's framing as the
// cases assert it (the byte-for-byte comparison with Debian's webhook is test/http1-wire.peers.test.ts).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before } from "node:test";
import { OUR_WEBHOOK as OURS } from "./support/binaries.js";
import { freePort } from "./support/free-port.js";
import { ServerGroup } from "./support/server-group.js";
import { exchange, HOOKS, wireTests } from "./support/wire-cases.js";

const servers = new ServerGroup();
let root: string;
let port: number;

before(async () => {
  root = await mkdtemp(join(tmpdir(), "webhook-wire-"));
  const hooks = join(root, "hooks.json");
  await writeFile(hooks, JSON.stringify(HOOKS));
  port = await freePort();
  const argv = ["-hooks", hooks, "-ip", "127.0.0.1", "-port", String(port), "-verbose"];
  await servers.start(process.execPath, [OURS, ...argv], { ready: "serving hooks on" });
});

after(async () => {
  await servers.stopAll();
  await rm(root, { recursive: true, force: true });
});

wireTests((ex) => exchange(port, ex));
