// The replay-safe match types through the real interface: node's fetch against the built server, signatures made
// as the senders make them (the Standard Webhooks reference vector included, sent over HTTP).
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { OUR_WEBHOOK } from "./support/binaries.js";
import { freePort } from "./support/free-port.js";
import { ServerGroup, type StartedServer } from "./support/server-group.js";

const SECRET = "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const STRIPE_SECRET = "whsec_stripe_test_secret";
const servers = new ServerGroup();
let dir: string;
let base: string;
let server: StartedServer;

const hook = (id: string, match: Record<string, unknown>) => ({
  id,
  "execute-command": "/bin/echo",
  "include-command-output-in-response": true,
  "pass-arguments-to-command": [{ source: "string", name: `${id} ran` }],
  "trigger-rule": { match },
});

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "webhook-signatures-"));
  await writeFile(
    join(dir, "hooks.yaml"),
    JSON.stringify([
      hook("standard", { type: "standard-webhooks", secret: `whsec_${SECRET}` }),
      // Wide enough for the reference vector's 2021 timestamp.
      hook("vector", {
        type: "standard-webhooks",
        secret: `whsec_${SECRET}`,
        "tolerance-seconds": 2000000000,
      }),
      hook("stripe", { type: "stripe-signature", secret: STRIPE_SECRET, "tolerance-seconds": 60 }),
    ]),
  );
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = await servers.start(
    process.execPath,
    [OUR_WEBHOOK, "-hooks", join(dir, "hooks.yaml"), "-ip", "127.0.0.1", "-port", String(port), "-verbose"],
    { ready: "serving hooks on" },
  );
});

after(async () => {
  await servers.stopAll();
  await rm(dir, { recursive: true, force: true });
});

async function post(id: string, headers: Record<string, string>, body = `{"test": 2432232314}`) {
  const answer = await fetch(`${base}/hooks/${id}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body,
  });
  return { status: answer.status, text: (await answer.text()).trim() };
}

const NOT_SATISFIED = { status: 200, text: "Hook rules were not satisfied." };
const REFUSED = { status: 500, text: "Error occurred while evaluating hook rules." };

function standardHeaders(
  seconds: number,
  body = `{"test": 2432232314}`,
  id = "msg_p5jXN8AQM9LWM0D4loKWxJek",
) {
  const signature = createHmac("sha256", Buffer.from(SECRET, "base64"))
    .update(`${id}.${seconds}.${body}`)
    .digest("base64");
  return { "webhook-id": id, "webhook-timestamp": String(seconds), "webhook-signature": `v1,${signature}` };
}

test("standard-webhooks over HTTP: signed now runs; missing headers are not satisfied; wrong, stale, future, replayed elsewhere fail", async () => {
  const now = Math.floor(Date.now() / 1000);
  assert.deepEqual(await post("standard", standardHeaders(now)), { status: 200, text: "standard ran" });
  assert.deepEqual(await post("standard", {}), NOT_SATISFIED);
  const { "webhook-signature": _dropped, ...unsigned } = standardHeaders(now);
  assert.deepEqual(await post("standard", unsigned), NOT_SATISFIED);
  assert.deepEqual(await post("standard", standardHeaders(now), `{"test": 1}`), REFUSED);
  assert.deepEqual(await post("standard", standardHeaders(now - 3600)), REFUSED);
  assert.deepEqual(await post("standard", standardHeaders(now + 3600)), REFUSED);
  assert.deepEqual(await post("standard", { ...standardHeaders(now), "webhook-timestamp": "soon" }), REFUSED);
  assert.match(server.log(), /invalid payload signatures \[v1,/);
});

test("the Standard Webhooks reference signing vector verifies over HTTP", async () => {
  const vector = {
    "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
    "webhook-timestamp": "1614265330",
    "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
  };
  assert.deepEqual(await post("vector", vector), { status: 200, text: "vector ran" });
  // The default tolerance refuses the same delivery: it is years old.
  assert.deepEqual(await post("standard", vector), REFUSED);
});

test("stripe-signature over HTTP: t=…,v1=… within tolerance-seconds runs, others fail", async () => {
  const body = JSON.stringify({ id: "evt_1", object: "event" });
  const sign = (t: number, secret = STRIPE_SECRET) =>
    `t=${t},v1=${createHmac("sha256", secret).update(`${t}.${body}`).digest("hex")}`;
  const now = Math.floor(Date.now() / 1000);
  assert.deepEqual(await post("stripe", { "Stripe-Signature": sign(now) }, body), {
    status: 200,
    text: "stripe ran",
  });
  assert.deepEqual(await post("stripe", {}, body), NOT_SATISFIED);
  assert.deepEqual(await post("stripe", { "Stripe-Signature": sign(now, "whsec_other") }, body), REFUSED);
  assert.deepEqual(await post("stripe", { "Stripe-Signature": sign(now - 120) }, body), REFUSED);
  assert.deepEqual(await post("stripe", { "Stripe-Signature": sign(now + 120) }, body), REFUSED);
  assert.deepEqual(await post("stripe", { "Stripe-Signature": "garbage" }, body), REFUSED);
});
