// An invalid `@base64` job: upstream answers 400 quoting what Go's decoder wrote before the bad byte (handler/push.go
// decodeBase64). Debian's 1.5.1 then leaves the route's mutex locked (fixed upstream in 5ad8650, see
// peer-parity.peers.test.ts), so each case gets a fresh peer; ours answers them all in turn.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type Side, send } from "./support/peer-compare.js";
import { startPeerGateway } from "./support/peers.js";
import { startGateway, stop, stopAll } from "./support/processes.js";

after(stopAll);

let ours: Side;
before(async () => {
  ours = await startGateway();
});

for (const path of [
  "/metrics/job@base64/YWJj%21",
  "/metrics/job@base64/YWJjZGVmZ2hp.x",
  "/metrics/job@base64/YWJjZ",
  "/metrics/job@base64/YW%0AJj%21",
  "/metrics/job@base64/_-8A.",
  "/metrics/job@base64/YW%0AJj",
]) {
  test(`PUT ${path}`, async () => {
    const peer = await startPeerGateway();
    try {
      const step = { method: "PUT", path, body: "m 1\n" };
      const [p, o] = [await send(peer, step), await send(ours, step)];
      assert.deepEqual(o, p);
    } finally {
      await stop(peer.child);
    }
  });
}
