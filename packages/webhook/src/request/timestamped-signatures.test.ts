// The Standard Webhooks reference libraries' tests (standard-webhooks/standard-webhooks, libraries/javascript
// src/webhook.test.ts and libraries/go/webhook_test.go), translated to the `standard-webhooks` match type: the same
// message id, payload, secret and signatures, and their fixed signing vector. Where the libraries raise an error
// for a missing header, a hook's rules are "not satisfied" instead (as for payload-hmac-*). Then the cases of
// Stripe's libraries (stripe-node test/Webhook.spec.ts) for `stripe-signature`.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { test } from "node:test";
import { RuleError, SignatureError } from "../errors.js";
import type { Rule } from "../hooks/hook.js";
import { parseHooks } from "../hooks/hooks-file.js";
import type { RequestData } from "./request-values.js";
import { evaluateRule } from "./rules.js";

const MSG_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
const PAYLOAD = `{"test": 2432232314}`;
const SECRET = "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const TOLERANCE_MS = 5 * 60 * 1000;
const NOW = Date.parse("2026-11-28T10:00:00Z");

function rule(type: string, extra: Record<string, unknown> = {}): Rule {
  const [hook] = parseHooks(
    JSON.stringify([
      { id: "t", "execute-command": "/bin/true", "trigger-rule": { match: { type, ...extra } } },
    ]),
  );
  assert.ok(hook?.triggerRule);
  return hook.triggerRule;
}

/** The reference tests' `TestPayload`: headers signed for `timestamp` (ms) with the default secret. */
function referencePayload(timestamp = NOW) {
  const seconds = Math.floor(timestamp / 1000);
  const signature = createHmac("sha256", Buffer.from(SECRET, "base64"))
    .update(`${MSG_ID}.${seconds}.${PAYLOAD}`)
    .digest("base64");
  return {
    "Webhook-Id": MSG_ID,
    "Webhook-Signature": `v1,${signature}`,
    "Webhook-Timestamp": String(seconds),
  } as Record<string, string>;
}

function verify(
  headers: Record<string, string>,
  options: { secret?: string; now?: number; body?: string } = {},
) {
  const data: RequestData = {
    method: "POST",
    remoteAddr: "192.0.2.1:5555",
    headers,
    query: {},
    payload: undefined,
    rawBody: Buffer.from(options.body ?? PAYLOAD),
  };
  return evaluateRule(rule("standard-webhooks", { secret: options.secret ?? `whsec_${SECRET}` }), data, {
    softFailures: false,
    now: () => new Date(options.now ?? NOW),
  });
}

const satisfied = { ok: true };
const notSatisfied = { ok: false };
const signatureError = (r: { ok: boolean; error?: Error }) => {
  assert.equal(r.ok, false);
  assert.ok(r.error instanceof SignatureError, String(r.error));
};

test("standard-webhooks: empty key raises error", () => {
  for (const secret of ["whsec_", ""]) {
    const r = verify(referencePayload(), { secret });
    assert.ok(r.error instanceof RuleError, String(r.error));
  }
});

test("standard-webhooks: a missing id, timestamp or signature header leaves the rules not satisfied", () => {
  for (const name of ["Webhook-Id", "Webhook-Timestamp", "Webhook-Signature"]) {
    const headers = referencePayload();
    delete headers[name];
    assert.deepEqual(verify(headers), notSatisfied, name);
  }
});

test("standard-webhooks: invalid timestamp throws error", () => {
  signatureError(verify({ ...referencePayload(), "Webhook-Timestamp": "hello" }));
});

test("standard-webhooks: invalid signature throws error", () => {
  signatureError(verify({ ...referencePayload(), "Webhook-Signature": "v1,dawfeoifkpqwoekfpqoekf" }));
  // The Go library's invalid signature.
  signatureError(
    verify({ ...referencePayload(), "Webhook-Signature": "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=" }),
  );
});

test("standard-webhooks: partial signature throws error", () => {
  const headers = referencePayload();
  signatureError(
    verify({ ...headers, "Webhook-Signature": (headers["Webhook-Signature"] as string).slice(0, 8) }),
  );
  signatureError(verify({ ...headers, "Webhook-Signature": "v1," }));
});

test("standard-webhooks: valid signature is valid", () => {
  assert.deepEqual(verify(referencePayload()), satisfied);
});

test("standard-webhooks: old timestamp fails, new timestamp fails", () => {
  signatureError(verify(referencePayload(NOW - TOLERANCE_MS - 1000)));
  signatureError(verify(referencePayload(NOW + TOLERANCE_MS + 1000)));
  // Within the tolerance both ways.
  assert.deepEqual(verify(referencePayload(NOW - TOLERANCE_MS + 1000)), satisfied);
  assert.deepEqual(verify(referencePayload(NOW + TOLERANCE_MS - 1000)), satisfied);
  // The Go library's "invalid timestamp": a signature made now, a timestamp of 2000-01-01.
  const headers = referencePayload();
  signatureError(verify({ ...headers, "Webhook-Timestamp": String(Date.UTC(2000, 0, 1) / 1000) }));
});

test("the tolerance is counted in whole seconds, as the reference libraries count it, whatever the millisecond of now", () => {
  // Found by test/extensions-fuzz.test.ts: a timestamp exactly tolerance-seconds old was refused unless the clock
  // stood on a whole second (the age was taken in milliseconds), while the libraries accept it.
  const late = NOW + 999;
  const tolerance = TOLERANCE_MS / 1000;
  assert.deepEqual(verify(referencePayload(NOW - TOLERANCE_MS), { now: late }), satisfied);
  assert.deepEqual(verify(referencePayload(NOW + TOLERANCE_MS), { now: late }), satisfied);
  signatureError(verify(referencePayload(NOW - TOLERANCE_MS - 1000), { now: late }));
  signatureError(verify(referencePayload(NOW + TOLERANCE_MS + 1000), { now: late }));
  const at = (offset: number) =>
    stripeHeader({ secret: STRIPE_SECRET, payload: STRIPE_PAYLOAD, timestamp: NOW / 1000 + offset });
  assert.deepEqual(verifyStripe(at(-tolerance), { now: late }), satisfied);
  assert.deepEqual(verifyStripe(at(tolerance), { now: late }), satisfied);
  signatureError(verifyStripe(at(-tolerance - 1), { now: late }));
  signatureError(verifyStripe(at(tolerance + 1), { now: late }));
});

test("standard-webhooks: multi sig payload is valid", () => {
  const headers = referencePayload();
  const sigs = [
    "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=",
    "v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=",
    headers["Webhook-Signature"] as string, // valid signature
    "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=",
  ];
  assert.deepEqual(verify({ ...headers, "Webhook-Signature": sigs.join(" ") }), satisfied);
});

test("standard-webhooks: verification works with and without signature prefix", () => {
  assert.deepEqual(verify(referencePayload(), { secret: SECRET }), satisfied);
  assert.deepEqual(verify(referencePayload(), { secret: `whsec_${SECRET}` }), satisfied);
});

test("standard-webhooks: the reference libraries' signing vector verifies", () => {
  // key whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw, msg_p5jXN8AQM9LWM0D4loKWxJek, 1614265330, {"test": 2432232314}
  const headers = {
    "Webhook-Id": MSG_ID,
    "Webhook-Timestamp": "1614265330",
    "Webhook-Signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
  };
  assert.deepEqual(verify(headers, { now: 1614265330 * 1000 }), satisfied);
  // One byte of the body changed, or another id: no longer.
  signatureError(verify(headers, { now: 1614265330 * 1000, body: `{"test": 2432232315}` }));
  signatureError(verify({ ...headers, "Webhook-Id": "msg_other" }, { now: 1614265330 * 1000 }));
  // A secret that is not base64 is a rule error, not a failed signature.
  assert.ok(verify(headers, { secret: "whsec_not base64!" }).error instanceof RuleError);
});

/** stripe-node's `generateTestHeaderString`: `t=<seconds>,v1=<hex HMAC-SHA256 of "t.payload">`. */
function stripeHeader(options: {
  secret: string;
  payload: string;
  timestamp: number;
  scheme?: string;
}): string {
  const signature = createHmac("sha256", options.secret)
    .update(`${options.timestamp}.${options.payload}`)
    .digest("hex");
  return `t=${options.timestamp},${options.scheme ?? "v1"}=${signature}`;
}

const STRIPE_SECRET = "whsec_test_secret";
const STRIPE_PAYLOAD = JSON.stringify({ id: "evt_test_webhook", object: "event" }, null, 2);

function verifyStripe(header: string | undefined, options: { tolerance?: number; now?: number } = {}) {
  const data: RequestData = {
    method: "POST",
    remoteAddr: "192.0.2.1:5555",
    headers: header === undefined ? {} : { "Stripe-Signature": header },
    query: {},
    payload: undefined,
    rawBody: Buffer.from(STRIPE_PAYLOAD),
  };
  const extra = options.tolerance === undefined ? {} : { "tolerance-seconds": options.tolerance };
  return evaluateRule(rule("stripe-signature", { secret: STRIPE_SECRET, ...extra }), data, {
    softFailures: false,
    now: () => new Date(options.now ?? NOW),
  });
}

test("stripe-signature: the cases of Stripe's library", () => {
  const now = Math.floor(NOW / 1000);
  const valid = stripeHeader({ secret: STRIPE_SECRET, payload: STRIPE_PAYLOAD, timestamp: now });
  // "should return true when the header contains a valid signature and the timestamp is within tolerance"
  assert.deepEqual(verifyStripe(valid), satisfied);
  // "the header does not have the expected format"
  signatureError(verifyStripe("I'm not even a real signature header"));
  // "there are no signatures with the expected scheme"
  signatureError(
    verifyStripe(
      stripeHeader({ secret: STRIPE_SECRET, payload: STRIPE_PAYLOAD, timestamp: now, scheme: "v0" }),
    ),
  );
  // "there are no valid signatures for the payload"
  signatureError(verifyStripe(`t=${now},v1=bad_signature`));
  signatureError(
    verifyStripe(stripeHeader({ secret: "whsec_other", payload: STRIPE_PAYLOAD, timestamp: now })),
  );
  // "the timestamp is not within the tolerance" (the default, 300 s, and one of 10 s)
  signatureError(
    verifyStripe(stripeHeader({ secret: STRIPE_SECRET, payload: STRIPE_PAYLOAD, timestamp: now - 301 })),
  );
  const fifteenAgo = stripeHeader({ secret: STRIPE_SECRET, payload: STRIPE_PAYLOAD, timestamp: now - 15 });
  signatureError(verifyStripe(fifteenAgo, { tolerance: 10 }));
  assert.deepEqual(verifyStripe(fifteenAgo), satisfied);
  // Beyond Stripe's library, which accepts any future time: a future one fails as a stale one does.
  signatureError(
    verifyStripe(stripeHeader({ secret: STRIPE_SECRET, payload: STRIPE_PAYLOAD, timestamp: now + 301 })),
  );
  // "the header contains at least one valid signature"
  assert.deepEqual(verifyStripe(`${valid},v1=potato,v0=tomato`), satisfied);
  assert.deepEqual(verifyStripe(`t=${now},v1=potato,${valid.slice(valid.indexOf("v1="))}`), satisfied);
  // A missing header: not satisfied; an empty secret: a rule error.
  assert.deepEqual(verifyStripe(undefined), notSatisfied);
  const r = evaluateRule(
    rule("stripe-signature", { secret: "" }),
    {
      method: "POST",
      remoteAddr: "",
      headers: { "Stripe-Signature": valid },
      query: {},
      payload: undefined,
      rawBody: Buffer.from(""),
    },
    { softFailures: false, now: () => new Date(NOW) },
  );
  assert.ok(r.error instanceof RuleError);
});

test("tolerance-seconds must be a whole number of seconds above 0", () => {
  assert.throws(
    () => rule("stripe-signature", { secret: "s", "tolerance-seconds": 0 }),
    /tolerance-seconds must be/,
  );
  assert.throws(
    () => rule("stripe-signature", { secret: "s", "tolerance-seconds": "ten" }),
    /cannot unmarshal string/,
  );
});
