import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { test } from "node:test";
import { ParameterNodeError, RuleError, SignatureError } from "../errors.js";
import type { Rule } from "../hooks/hook.js";
import { parseHooks } from "../hooks/hooks-file.js";
import { constantTimeEqual } from "./constant-time-equal.js";
import type { RequestData } from "./request-values.js";
import { checkPayloadSignature, evaluateRule, goRegExp } from "./rules.js";

function rule(json: unknown): Rule {
  const [hook] = parseHooks(
    JSON.stringify([{ id: "t", "execute-command": "/bin/true", "trigger-rule": json }]),
  );
  assert.ok(hook?.triggerRule);
  return hook.triggerRule;
}

function request(over: Partial<RequestData> = {}): RequestData {
  return {
    method: "POST",
    remoteAddr: "10.1.2.3:5555",
    headers: {},
    query: {},
    payload: { ref: "refs/heads/main", user: { name: "ann" } },
    rawBody: Buffer.from('{"ref":"refs/heads/main"}'),
    ...over,
  };
}

const opts = { softFailures: false, now: () => new Date("2026-01-01T00:00:00Z") };
const match = (type: string, extra: Record<string, unknown>) => ({ match: { type, ...extra } });
const payload = (name: string) => ({ source: "payload", name });

test("value and regex matches read dotted payload names", () => {
  assert.equal(
    evaluateRule(rule(match("value", { value: "ann", parameter: payload("user.name") })), request(), opts).ok,
    true,
  );
  assert.equal(
    evaluateRule(rule(match("value", { value: "bob", parameter: payload("user.name") })), request(), opts).ok,
    false,
  );
  assert.equal(
    evaluateRule(rule(match("regex", { regex: "^refs/heads/", parameter: payload("ref") })), request(), opts)
      .ok,
    true,
  );
});

test("a missing parameter is a ParameterNodeError, which 'or' ignores and 'and' propagates", () => {
  const missing = match("value", { value: "x", parameter: payload("nope") });
  const yes = match("value", { value: "ann", parameter: payload("user.name") });
  const single = evaluateRule(rule(missing), request(), opts);
  assert.equal(single.ok, false);
  assert.ok(single.error instanceof ParameterNodeError);
  assert.equal(evaluateRule(rule({ or: [missing, yes] }), request(), opts).ok, true);
  assert.ok(evaluateRule(rule({ and: [yes, missing] }), request(), opts).error instanceof ParameterNodeError);
  const not = evaluateRule(rule({ not: missing }), request(), opts);
  assert.equal(not.ok, true, "not passes the child's error through with the negated result");
  assert.ok(not.error instanceof ParameterNodeError);
});

test("payload signatures: sha1/sha256/sha512, prefixed, bare and comma-separated; forged ones fail", () => {
  const body = Buffer.from('{"a":1}');
  for (const algorithm of ["sha1", "sha256", "sha512"]) {
    const mac = createHmac(algorithm, "k").update(body).digest("hex");
    for (const header of [`${algorithm}=${mac}`, mac, `${algorithm}=00,${algorithm}=${mac}`]) {
      assert.doesNotThrow(() => checkPayloadSignature(body, { secret: "k", header, algorithm }), header);
    }
    assert.throws(
      () => checkPayloadSignature(body, { secret: "k", header: `${algorithm}=00`, algorithm }),
      SignatureError,
    );
    assert.throws(() => checkPayloadSignature(body, { secret: "", header: mac, algorithm }), RuleError);
  }
});

test("soft signature failures make a bad signature inside 'or' count as false", () => {
  const sig = match("payload-hmac-sha256", { secret: "k", parameter: { source: "header", name: "X-Sig" } });
  const yes = match("value", { value: "ann", parameter: payload("user.name") });
  const data = request({ headers: { "X-Sig": "sha256=00" } });
  assert.ok(evaluateRule(rule({ or: [sig, yes] }), data, opts).error instanceof SignatureError);
  assert.equal(evaluateRule(rule({ or: [sig, yes] }), data, { ...opts, softFailures: true }).ok, true);
});

test("ip-whitelist accepts CIDR ranges and bare addresses", () => {
  assert.equal(
    evaluateRule(rule(match("ip-whitelist", { "ip-range": "10.0.0.0/8" })), request(), opts).ok,
    true,
  );
  assert.equal(
    evaluateRule(rule(match("ip-whitelist", { "ip-range": "192.168.0.0/16 10.1.2.3" })), request(), opts).ok,
    true,
  );
  assert.equal(
    evaluateRule(rule(match("ip-whitelist", { "ip-range": "127.0.0.1/32" })), request(), opts).ok,
    false,
  );
});

test("the reason for a false rule names the failing match but never the configured value", () => {
  const r = evaluateRule(
    rule({ and: [match("value", { value: "s3cret-token", parameter: payload("ref") })] }),
    request(),
    { ...opts, explain: true },
  );
  assert.equal(r.ok, false);
  assert.match(r.reason ?? "", /payload "ref" differs/);
  assert.doesNotMatch(r.reason ?? "", /s3cret-token/);
  // Without -explain-rules no reason text is built at all.
  const plain = evaluateRule(
    rule({ or: [match("value", { value: "x", parameter: payload("ref") })] }),
    request(),
    opts,
  );
  assert.deepEqual(plain, { ok: false });
});

test("constantTimeEqual compares contents and lengths", () => {
  assert.equal(constantTimeEqual("abc", "abc"), true);
  assert.equal(constantTimeEqual("abc", "abd"), false);
  assert.equal(constantTimeEqual("abc", "abcd"), false);
});

test("Go regexp syntax: inline flags, named groups, \\A and \\z, escapes Unicode mode refuses", () => {
  assert.equal(goRegExp("(?i)^refs/heads/MAIN$").test("refs/heads/main"), true);
  assert.equal(goRegExp("^(?P<branch>[a-z]+)$").exec("dev")?.groups?.branch, "dev");
  assert.equal(goRegExp("\\Aab\\z").test("ab"), true);
  assert.equal(goRegExp("\\Aab\\z").test("ab\n"), false);
  assert.equal(goRegExp("a\\-b").test("a-b"), true);
  assert.throws(() => goRegExp("("), RuleError);
});

test("Go regexp syntax: flags after a leading ^ apply to the rest, as RE2 reads them", () => {
  assert.equal(goRegExp("^(?i)S3$").test("s3"), true);
  assert.equal(goRegExp("^(?i)S3$").test("xs3"), false);
  assert.equal(goRegExp("^(?s)a.b$").test("a\nb"), true);
});

test("an unknown match type reads its parameter first, as upstream: no source is an error, a good one is false", () => {
  const bad = evaluateRule(rule(match("nope", {})), request(), opts);
  assert.equal(bad.ok, false);
  assert.ok(bad.error !== undefined && !(bad.error instanceof ParameterNodeError));
  const missing = evaluateRule(rule(match("nope", { parameter: payload("absent") })), request(), opts);
  assert.ok(missing.error instanceof ParameterNodeError);
  const good = evaluateRule(rule(match("nope", { parameter: payload("ref") })), request(), opts);
  assert.deepEqual([good.ok, good.error], [false, undefined]);
});
