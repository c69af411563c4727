import { createHmac } from "node:crypto";
import { RuleError, SignatureError } from "../errors.js";
import { constantTimeEqual } from "./constant-time-equal.js";
import type { RequestData } from "./request-values.js";

/** `tolerance-seconds` when the match rule has none: the 5 minutes of the Standard Webhooks libraries and Stripe's. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * Match type `standard-webhooks` (beyond upstream; adnanh/webhook#643): the Standard Webhooks specification's
 * symmetric signature (standardwebhooks.com, spec/standard-webhooks.md): `webhook-signature` holds space-separated
 * `v1,<base64>` signatures of `<webhook-id>.<webhook-timestamp>.<body>` by HMAC-SHA256 under the secret, given as
 * `whsec_` + base64 (the prefix is optional, as in the reference libraries). The timestamp must lie within
 * `tolerance` seconds of now, either way, so a captured request cannot be replayed later.
 *
 * @returns false when one of the three headers is missing (the rules are not satisfied, as for `payload-hmac-*`)
 * @throws {SignatureError} for a wrong, malformed, stale or future signature
 * @throws {RuleError} for a secret that is empty or not base64
 */
export function standardWebhooksSignature(
  data: RequestData,
  options: { secret: string; toleranceSeconds: number; now: Date },
): boolean {
  const id = header(data, "Webhook-Id");
  const timestamp = header(data, "Webhook-Timestamp");
  const signatures = header(data, "Webhook-Signature");
  if (id === undefined || timestamp === undefined || signatures === undefined) return false;
  const key = standardWebhooksKey(options.secret);
  const seconds = checkTimestamp(timestamp, options);
  const expected = createHmac("sha256", key)
    .update(`${id}.${seconds}.`)
    .update(data.rawBody)
    .digest("base64");
  for (const versioned of signatures.split(" ")) {
    const comma = versioned.indexOf(",");
    if (comma < 0 || versioned.slice(0, comma) !== "v1") continue;
    // The base64 text itself, as the reference libraries compare it: no lenient decoding of a near-miss.
    if (constantTimeEqual(versioned.slice(comma + 1), expected)) return true;
  }
  throw new SignatureError(`invalid payload signatures [${signatures}]`);
}

/**
 * Match type `stripe-signature` (beyond upstream): Stripe's `Stripe-Signature: t=<unix>,v1=<hex>[,v1=…]` header,
 * the `v1` signatures HMAC-SHA256 of `<t>.<body>` under the whole `secret` string (`whsec_…` included, as Stripe
 * uses it). Other schemes (`v0`) are ignored. `t` must lie within `tolerance` seconds of now, either way.
 *
 * @returns false when `Stripe-Signature` is missing
 * @throws {SignatureError} for a wrong, malformed, stale or future signature
 * @throws {RuleError} for an empty secret
 */
export function stripeSignature(
  data: RequestData,
  options: { secret: string; toleranceSeconds: number; now: Date },
): boolean {
  const value = header(data, "Stripe-Signature");
  if (value === undefined) return false;
  if (options.secret === "") throw new RuleError("signature validation secret can not be empty");
  let timestamp: string | undefined;
  const signatures: string[] = [];
  for (const item of value.split(",")) {
    const eq = item.indexOf("=");
    const name = item.slice(0, eq).trim();
    const text = item.slice(eq + 1).trim();
    if (eq < 0) continue;
    if (name === "t") {
      if (timestamp !== undefined)
        throw new SignatureError(`invalid payload signature ${value}: two timestamps`);
      timestamp = text;
    } else if (name === "v1") signatures.push(text);
  }
  if (timestamp === undefined || signatures.length === 0) {
    throw new SignatureError(`invalid payload signature ${value}: no timestamp or no v1 signature`);
  }
  const seconds = checkTimestamp(timestamp, options);
  const expected = createHmac("sha256", options.secret)
    .update(`${seconds}.`)
    .update(data.rawBody)
    .digest("hex");
  for (const signature of signatures) if (constantTimeEqual(signature, expected)) return true;
  throw new SignatureError(`invalid payload signatures [${signatures.join(" ")}]`);
}

function header(data: RequestData, name: string): string | undefined {
  const value = data.headers[name];
  return typeof value === "string" ? value : undefined;
}

/** The key of a `whsec_<base64>` secret (prefix optional). */
function standardWebhooksKey(secret: string): Buffer {
  const text = secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret;
  if (text === "") throw new RuleError("signature validation secret can not be empty");
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text) || text.length % 4 === 1) {
    throw new RuleError("standard-webhooks secret must be whsec_ followed by base64");
  }
  return Buffer.from(text, "base64");
}

/**
 * A Unix time in seconds (decimal digits only) within `toleranceSeconds` of now.
 *
 * @returns the timestamp as it was signed
 * @throws {SignatureError} malformed, too old or too new
 */
function checkTimestamp(text: string, options: { toleranceSeconds: number; now: Date }): string {
  if (!/^\d{1,15}$/.test(text)) throw new SignatureError(`invalid signature timestamp ${text}`);
  // Whole seconds, as the reference libraries (`Math.floor(Date.now() / 1000)`, Stripe's and Standard Webhooks'):
  // a timestamp exactly `tolerance` seconds away is accepted both ways, whatever the millisecond of now.
  const age = Math.floor(options.now.getTime() / 1000) - Number(text);
  if (age > options.toleranceSeconds)
    throw new SignatureError(`outdated payload signature timestamp ${text}`);
  if (-age > options.toleranceSeconds)
    throw new SignatureError(`payload signature timestamp ${text} is in the future`);
  return text;
}
