import { createHmac } from "node:crypto";
import { BlockList, isIP } from "node:net";
import { ParameterNodeError, RuleError, SignatureError } from "../errors.js";
import { parseScalrDate } from "../go/scalr-date.js";
import type { MatchRule, Rule } from "../hooks/hook.js";
import { constantTimeEqual } from "./constant-time-equal.js";
import { getArgument, type RequestData } from "./request-values.js";
import {
  DEFAULT_TOLERANCE_SECONDS,
  standardWebhooksSignature,
  stripeSignature,
} from "./timestamped-signatures.js";

/** Upstream returns `(bool, error)`: the outcome and, separately, why evaluation failed. */
export interface Evaluation {
  readonly ok: boolean;
  readonly error?: Error;
  /**
   * Beyond upstream: why the rule is false, for the `-debug` log (adnanh/webhook#385 asks for it). Never carries a
   * configured secret or value.
   */
  readonly reason?: string;
}

/** What evaluation needs besides the request. */
export interface RuleOptions {
  /** `trigger-signature-soft-failures`: signature errors inside `or` count as false instead of aborting. */
  readonly softFailures: boolean;
  readonly now: () => Date;
  /** Fill in {@link Evaluation.reason} (`-explain-rules`); off, no reason text is built. */
  readonly explain?: boolean;
}

/**
 * Evaluates a trigger rule exactly as upstream's `Rules.Evaluate` (internal/hook/hook.go), including its quirks: `and`
 * short-circuits and aborts on any error; `or` ignores a missing parameter (and, with soft failures, a bad
 * signature); `not` passes its child's error through unchanged.
 */
export function evaluateRule(rule: Rule, data: RequestData, options: RuleOptions): Evaluation {
  if ("and" in rule) {
    for (const child of rule.and) {
      const r = evaluateRule(child, data, options);
      if (r.error) return { ok: false, error: r.error };
      if (!r.ok) return options.explain ? { ok: false, reason: `and: ${r.reason ?? "a rule is false"}` } : r;
    }
    return { ok: true };
  }
  if ("or" in rule) {
    const reasons: string[] = [];
    for (const child of rule.or) {
      const r = evaluateRule(child, data, options);
      if (r.error) {
        const ignorable =
          r.error instanceof ParameterNodeError ||
          (options.softFailures && r.error instanceof SignatureError);
        if (!ignorable) return { ok: false, error: r.error };
        if (options.explain) reasons.push(r.error.message);
      } else if (r.reason !== undefined) reasons.push(r.reason);
      // An ignored error still counts its outcome: `not` over a missing parameter is true (upstream's quirk).
      if (r.ok) return { ok: true };
    }
    if (!options.explain) return { ok: false };
    return { ok: false, reason: `or: none of ${rule.or.length} rules is true (${reasons.join("; ")})` };
  }
  if ("not" in rule) {
    const r = evaluateRule(rule.not, data, options);
    if (r.error) return { ok: !r.ok, error: r.error };
    if (!r.ok) return { ok: true };
    return options.explain ? { ok: false, reason: "not: the negated rule is true" } : { ok: false };
  }
  if ("match" in rule) {
    const r = evaluateMatch(rule.match, data, options);
    if (r.ok || r.error) return r;
    return options.explain ? { ok: false, reason: matchReason(rule.match, data) } : { ok: false };
  }
  return options.explain ? { ok: false, reason: "empty rule" } : { ok: false };
}

function evaluateMatch(m: MatchRule, data: RequestData, options: RuleOptions): Evaluation {
  try {
    if (m.type === "ip-whitelist") return { ok: ipInRange(data.remoteAddr, m.ipRange) };
    if (m.type === "scalr-signature") return { ok: scalrSignature(data, m.secret, options.now()) };
    if (m.type === "standard-webhooks" || m.type === "stripe-signature") {
      const check = m.type === "standard-webhooks" ? standardWebhooksSignature : stripeSignature;
      const toleranceSeconds = m.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
      return { ok: check(data, { secret: m.secret, toleranceSeconds, now: options.now() }) };
    }
    // Upstream reads the parameter before it looks at the type, so an unknown type with a bad or missing
    // parameter is an error (500) or a missing node, and only with a good one plain false (hook.go MatchRule.Evaluate).
    const value = getArgument(m.parameter, data);
    const algorithm = /^payload-(?:hmac|hash)-(sha1|sha256|sha512)$/.exec(m.type)?.[1];
    if (algorithm === undefined && m.type !== "value" && m.type !== "regex") return { ok: false };
    if (m.type === "value") return { ok: constantTimeEqual(value, m.value) };
    if (m.type === "regex") {
      return { ok: goRegExp(m.regex).test(value) };
    }
    checkPayloadSignature(data.rawBody, { secret: m.secret, header: value, algorithm: algorithm as string });
    return { ok: true };
  } catch (error) {
    return { ok: false, error: error as Error };
  }
}

const regexCache = new Map<string, RegExp>();

/**
 * Compiles a Go (RE2) pattern as a JavaScript RegExp: leading `(?flags)` (also after `^`) become flags, `(?P<name>` becomes `(?<name>`,
 * `\A`/`\z` become `^`/`$`. Unicode mode first (as RE2 is UTF-8 aware), then without it for escapes such as `\-` that
 * RE2 accepts but Unicode mode refuses.
 *
 * @throws {RuleError} when the pattern does not compile
 */
export function goRegExp(pattern: string): RegExp {
  const cached = regexCache.get(pattern);
  if (cached !== undefined) return cached;
  let source = pattern;
  let flags = "";
  // `^(?i)x` is `(?i)^x`: `i` and `s` do not change what `^` matches (`m` does, so it must come first).
  const inline = /^(\^?)\(\?([ims]+)\)/.exec(source);
  if (inline && !(inline[1] === "^" && inline[2]?.includes("m"))) {
    flags = inline[2] ?? "";
    source = `${inline[1]}${source.slice(inline[0].length)}`;
  }
  source = source.replaceAll("(?P<", "(?<").replace(/\\A/g, "(?<![\\s\\S])").replace(/\\z/g, "(?![\\s\\S])");
  let re: RegExp;
  try {
    re = new RegExp(source, `${flags}u`);
  } catch {
    try {
      re = new RegExp(source, flags);
    } catch (cause) {
      throw new RuleError(`error parsing regexp: ${(cause as Error).message}`, { cause });
    }
  }
  if (regexCache.size < 256) regexCache.set(pattern, re);
  return re;
}

function matchReason(m: MatchRule, data: RequestData): string {
  const where = `${m.parameter.source} ${JSON.stringify(m.parameter.name)}`;
  switch (m.type) {
    case "value":
      return `match value: ${where} differs from the configured value`;
    case "regex":
      return `match regex: ${where} does not match ${JSON.stringify(m.regex)}`;
    case "ip-whitelist":
      return `match ip-whitelist: ${data.remoteAddr} is outside ${JSON.stringify(m.ipRange)}`;
    case "scalr-signature":
      return "match scalr-signature: X-Signature or Date header missing";
    case "standard-webhooks":
      return "match standard-webhooks: webhook-id, webhook-timestamp or webhook-signature header missing";
    case "stripe-signature":
      return "match stripe-signature: Stripe-Signature header missing";
    default:
      return `match: unknown match type ${JSON.stringify(m.type)}`;
  }
}

/**
 * Verifies an HMAC header the way upstream formats it: `sha256=<hex>`, bare hex, or several comma-separated (only the
 * items carrying the algorithm's prefix count). The expected MAC is lower-case hex, compared in constant time.
 *
 * @throws {SignatureError} listing the signatures given (never the expected one)
 */
export function checkPayloadSignature(
  body: Buffer,
  options: { secret: string; header: string; algorithm: string },
): void {
  if (options.secret === "") throw new RuleError("signature validation secret can not be empty");
  const prefix = `${options.algorithm}=`;
  const signatures = options.header.includes(",")
    ? options.header.split(",").flatMap((s) => (s.startsWith(prefix) ? [s.slice(prefix.length)] : []))
    : [options.header.startsWith(prefix) ? options.header.slice(prefix.length) : options.header];
  const expected = createHmac(options.algorithm, options.secret).update(body).digest("hex");
  if (signatures.some((s) => constantTimeEqual(s, expected))) return;
  // ValidateMAC marks a failure over an empty body (a multipart request's is always empty).
  const empty = body.length === 0 ? " on empty payload" : "";
  throw new SignatureError(`invalid payload signatures [${signatures.join(" ")}]${empty}`);
}

/** strings.Trim(s, " []") */
const EDGE_BRACKETS = /^[ [\]]+|[ [\]]+$/g;

function ipInRange(remoteAddr: string, ranges: string): boolean {
  const trimmed = remoteAddr.trim();
  // An address alone (-trusted-proxies takes the client from a header without its port) is taken as it is;
  // otherwise upstream's cut: trim blanks and brackets, drop what follows the last colon, trim again.
  let ip = trimmed;
  if (isIP(trimmed) === 0) {
    ip = trimmed.replace(EDGE_BRACKETS, "");
    const colon = ip.lastIndexOf(":");
    if (colon >= 0) ip = ip.slice(0, colon).replace(EDGE_BRACKETS, "");
  }
  const family = isIP(ip);
  if (family === 0) throw new RuleError(`invalid IP address found in remote address '${remoteAddr}'`);
  for (const item of ranges.split(/\s+/).filter((r) => r !== "")) {
    // Upstream appends /32 to a bare address, even an IPv6 one (internal/hook/hook.go CheckIPWhitelist).
    const [base = "", bits = "32"] = item.includes("/") ? item.split("/") : [item, "32"];
    const rangeFamily = isIP(base);
    const limit = rangeFamily === 4 ? 32 : 128;
    if (rangeFamily === 0 || !/^\d+$/.test(bits) || Number(bits) > limit)
      throw new RuleError(`invalid CIDR address: ${item}`);
    if (rangeFamily !== family) continue;
    const list = new BlockList();
    list.addSubnet(base, Number(bits), family === 4 ? "ipv4" : "ipv6");
    if (list.check(ip, family === 4 ? "ipv4" : "ipv6")) return true;
  }
  return false;
}

function scalrSignature(data: RequestData, secret: string, now: Date): boolean {
  const signature = data.headers["X-Signature"];
  const date = data.headers.Date;
  if (typeof signature !== "string" || typeof date !== "string") return false;
  if (secret === "") throw new RuleError("signature validation signing key can not be empty");
  const expected = createHmac("sha1", secret)
    .update(Buffer.concat([data.rawBody, Buffer.from(date)]))
    .digest("hex");
  if (!constantTimeEqual(signature, expected))
    throw new SignatureError(`invalid payload signature ${signature}`);
  let sent: Date;
  try {
    sent = parseScalrDate(date);
  } catch (error) {
    // A date Go cannot parse is an evaluation error, not a signature one (no soft failure; 500 even inside `or`).
    throw new RuleError((error as Error).message);
  }
  // Upstream's SignatureError{Signature: "outdated"}.
  if (Math.abs(now.getTime() - sent.getTime()) > 300_000)
    throw new SignatureError("invalid payload signature outdated");
  return true;
}
