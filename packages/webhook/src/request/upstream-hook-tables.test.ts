// Upstream's own unit-test tables (adnanh/webhook internal/hook/hook_test.go), translated row by row: payload
// signatures (with the check that an error never discloses the expected MAC), Scalr signatures, the IP whitelist,
// parameter extraction and the match/and/or/not rules. Plus the texts Debian's webhook 2.8.0 logged for signature
// failures and Scalr dates (test/peer-parity.peers.test.ts compares those live).
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { test } from "node:test";
import { ParameterNodeError, SignatureError } from "../errors.js";
import { goMarshal } from "../go/json.js";
import { parseScalrDate } from "../go/scalr-date.js";
import type { Rule } from "../hooks/hook.js";
import { parseHooks } from "../hooks/hooks-file.js";
import { getParameter, type RequestData } from "./request-values.js";
import { checkPayloadSignature, evaluateRule } from "./rules.js";

function request(over: Partial<RequestData>): RequestData {
  return {
    method: "POST",
    remoteAddr: "",
    headers: {},
    query: {},
    payload: {},
    rawBody: Buffer.alloc(0),
    ...over,
  };
}

function rule(json: unknown): Rule {
  const [hook] = parseHooks(JSON.stringify([{ id: "t", "trigger-rule": json }]));
  assert.ok(hook?.triggerRule);
  return hook.triggerRule;
}

const opts = { softFailures: false, now: () => new Date() };

// checkPayloadSignatureTests, checkPayloadSignature256Tests, checkPayloadSignature512Tests: payload, secret,
// signature, expected MAC, ok.
const signatureTables: Record<string, [string, string, string, string, boolean][]> = {
  sha1: [
    [
      '{"a": "z"}',
      "secret",
      "b17e04cbb22afa8ffbff8796fc1894ed27badd9e",
      "b17e04cbb22afa8ffbff8796fc1894ed27badd9e",
      true,
    ],
    [
      '{"a": "z"}',
      "secret",
      "sha1=b17e04cbb22afa8ffbff8796fc1894ed27badd9e",
      "b17e04cbb22afa8ffbff8796fc1894ed27badd9e",
      true,
    ],
    [
      '{"a": "z"}',
      "secret",
      "sha1=XXXe04cbb22afa8ffbff8796fc1894ed27badd9e,sha1=b17e04cbb22afa8ffbff8796fc1894ed27badd9e",
      "b17e04cbb22afa8ffbff8796fc1894ed27badd9e",
      true,
    ],
    [
      "",
      "secret",
      "25af6174a0fcecc4d346680a72b7ce644b9a88e8",
      "25af6174a0fcecc4d346680a72b7ce644b9a88e8",
      true,
    ],
    [
      '{"a": "z"}',
      "secret",
      "XXXe04cbb22afa8ffbff8796fc1894ed27badd9e",
      "b17e04cbb22afa8ffbff8796fc1894ed27badd9e",
      false,
    ],
    [
      '{"a": "z"}',
      "secret",
      "sha1=XXXe04cbb22afa8ffbff8796fc1894ed27badd9e",
      "b17e04cbb22afa8ffbff8796fc1894ed27badd9e",
      false,
    ],
    [
      '{"a": "z"}',
      "secret",
      "sha1=XXXe04cbb22afa8ffbff8796fc1894ed27badd9e,sha1=XXXe04cbb22afa8ffbff8796fc1894ed27badd9e",
      "b17e04cbb22afa8ffbff8796fc1894ed27badd9e",
      false,
    ],
    [
      '{"a": "z"}',
      "secreX",
      "b17e04cbb22afa8ffbff8796fc1894ed27badd9e",
      "900225703e9342328db7307692736e2f7cc7b36e",
      false,
    ],
    ['{"a": "z"}', "", "b17e04cbb22afa8ffbff8796fc1894ed27badd9e", "", false],
    [
      "",
      "secret",
      "XXXf6174a0fcecc4d346680a72b7ce644b9a88e8",
      "25af6174a0fcecc4d346680a72b7ce644b9a88e8",
      false,
    ],
  ],
  sha256: [
    [
      '{"a": "z"}',
      "secret",
      "f417af3a21bd70379b5796d5f013915e7029f62c580fb0f500f59a35a6f04c89",
      "f417af3a21bd70379b5796d5f013915e7029f62c580fb0f500f59a35a6f04c89",
      true,
    ],
    [
      '{"a": "z"}',
      "secret",
      "sha256=f417af3a21bd70379b5796d5f013915e7029f62c580fb0f500f59a35a6f04c89",
      "f417af3a21bd70379b5796d5f013915e7029f62c580fb0f500f59a35a6f04c89",
      true,
    ],
    [
      '{"a": "z"}',
      "secret",
      "sha256=XXX7af3a21bd70379b5796d5f013915e7029f62c580fb0f500f59a35a6f04c89,sha256=f417af3a21bd70379b5796d5f013915e7029f62c580fb0f500f59a35a6f04c89",
      "f417af3a21bd70379b5796d5f013915e7029f62c580fb0f500f59a35a6f04c89",
      true,
    ],
    [
      "",
      "secret",
      "f9e66e179b6747ae54108f82f8ade8b3c25d76fd30afde6c395822c530196169",
      "f9e66e179b6747ae54108f82f8ade8b3c25d76fd30afde6c395822c530196169",
      true,
    ],
    [
      '{"a": "z"}',
      "secret",
      "XXX7af3a21bd70379b5796d5f013915e7029f62c580fb0f500f59a35a6f04c89",
      "f417af3a21bd70379b5796d5f013915e7029f62c580fb0f500f59a35a6f04c89",
      false,
    ],
    [
      '{"a": "z"}',
      "secret",
      "sha256=XXX7af3a21bd70379b5796d5f013915e7029f62c580fb0f500f59a35a6f04c89",
      "f417af3a21bd70379b5796d5f013915e7029f62c580fb0f500f59a35a6f04c89",
      false,
    ],
    [
      '{"a": "z"}',
      "secret",
      "sha256=XXX7af3a21bd70379b5796d5f013915e7029f62c580fb0f500f59a35a6f04c89,sha256=XXX7af3a21bd70379b5796d5f013915e7029f62c580fb0f500f59a35a6f04c89",
      "f417af3a21bd70379b5796d5f013915e7029f62c580fb0f500f59a35a6f04c89",
      false,
    ],
    ['{"a": "z"}', "", "XXX7af3a21bd70379b5796d5f013915e7029f62c580fb0f500f59a35a6f04c89", "", false],
    [
      "",
      "secret",
      "XXX66e179b6747ae54108f82f8ade8b3c25d76fd30afde6c395822c530196169",
      "f9e66e179b6747ae54108f82f8ade8b3c25d76fd30afde6c395822c530196169",
      false,
    ],
  ],
  sha512: [
    [
      '{"a": "z"}',
      "secret",
      "4ab17cc8ec668ead8bf498f87f8f32848c04d5ca3c9bcfcd3db9363f0deb44e580b329502a7fdff633d4d8fca301cc5c94a55a2fec458c675fb0ff2655898324",
      "4ab17cc8ec668ead8bf498f87f8f32848c04d5ca3c9bcfcd3db9363f0deb44e580b329502a7fdff633d4d8fca301cc5c94a55a2fec458c675fb0ff2655898324",
      true,
    ],
    [
      '{"a": "z"}',
      "secret",
      "sha512=4ab17cc8ec668ead8bf498f87f8f32848c04d5ca3c9bcfcd3db9363f0deb44e580b329502a7fdff633d4d8fca301cc5c94a55a2fec458c675fb0ff2655898324",
      "4ab17cc8ec668ead8bf498f87f8f32848c04d5ca3c9bcfcd3db9363f0deb44e580b329502a7fdff633d4d8fca301cc5c94a55a2fec458c675fb0ff2655898324",
      true,
    ],
    [
      "",
      "secret",
      "b0e9650c5faf9cd8ae02276671545424104589b3656731ec193b25d01b07561c27637c2d4d68389d6cf5007a8632c26ec89ba80a01c77a6cdd389ec28db43901",
      "b0e9650c5faf9cd8ae02276671545424104589b3656731ec193b25d01b07561c27637c2d4d68389d6cf5007a8632c26ec89ba80a01c77a6cdd389ec28db43901",
      true,
    ],
    [
      '{"a": "z"}',
      "secret",
      "74a0081f5b5988f4f3e8b8dd34dadc6291611f2e6260635a7e1535f8e95edb97ff520ba8b152e8ca5760ac42639854f3242e29efc81be73a8bf52d474d31ffea",
      "4ab17cc8ec668ead8bf498f87f8f32848c04d5ca3c9bcfcd3db9363f0deb44e580b329502a7fdff633d4d8fca301cc5c94a55a2fec458c675fb0ff2655898324",
      false,
    ],
    [
      '{"a": "z"}',
      "",
      "74a0081f5b5988f4f3e8b8dd34dadc6291611f2e6260635a7e1535f8e95edb97ff520ba8b152e8ca5760ac42639854f3242e29efc81be73a8bf52d474d31ffea",
      "",
      false,
    ],
    [
      "",
      "secret",
      "XXX9650c5faf9cd8ae02276671545424104589b3656731ec193b25d01b07561c27637c2d4d68389d6cf5007a8632c26ec89ba80a01c77a6cdd389ec28db43901",
      "b0e9650c5faf9cd8ae02276671545424104589b3656731ec193b25d01b07561c27637c2d4d68389d6cf5007a8632c26ec89ba80a01c77a6cdd389ec28db43901",
      false,
    ],
  ],
};

for (const [algorithm, rows] of Object.entries(signatureTables)) {
  test(`upstream checkPayloadSignature (${algorithm}) table`, () => {
    for (const [payload, secret, header, mac, ok] of rows) {
      let error: Error | undefined;
      try {
        checkPayloadSignature(Buffer.from(payload), { secret, header, algorithm });
      } catch (e) {
        error = e as Error;
      }
      assert.equal(error === undefined, ok, `${algorithm} ${JSON.stringify([payload, secret, header])}`);
      if (error !== undefined && mac !== "")
        assert.doesNotMatch(error.message, new RegExp(mac), "MAC disclosed");
    }
  });
}

test("a signature failure over an empty body says so, as ValidateMAC (the peer's log line)", () => {
  assert.throws(
    () => checkPayloadSignature(Buffer.alloc(0), { secret: "s", header: "sha256=00", algorithm: "sha256" }),
    (e: Error) =>
      e instanceof SignatureError && e.message === "invalid payload signatures [00] on empty payload",
  );
  assert.throws(
    () =>
      checkPayloadSignature(Buffer.from("x"), {
        secret: "s",
        header: "sha256=00,sha256=11",
        algorithm: "sha256",
      }),
    (e: Error) => e.message === "invalid payload signatures [00 11]",
  );
});

test("upstream checkScalrSignatureTests (the date checked against its own time)", () => {
  const rows: [string, Record<string, string>, string, boolean][] = [
    [
      "Valid signature",
      { Date: "Thu 07 Sep 2017 06:30:04 UTC", "X-Signature": "48e395e38ac48988929167df531eb2da00063a7d" },
      "bilFGi4ZVZUdG+C6r0NIM9tuRq6PaG33R3eBUVhLwMAErGBaazvXe4Gq2DcJs5q+",
      true,
    ],
    [
      "Wrong signature",
      { Date: "Thu 07 Sep 2017 06:30:04 UTC", "X-Signature": "999395e38ac48988929167df531eb2da00063a7d" },
      "bilFGi4ZVZUdG+C6r0NIM9tuRq6PaG33R3eBUVhLwMAErGBaazvXe4Gq2DcJs5q+",
      false,
    ],
    [
      "Missing Date header",
      { "X-Signature": "999395e38ac48988929167df531eb2da00063a7d" },
      "bilFGi4ZVZUdG+C6r0NIM9tuRq6PaG33R3eBUVhLwMAErGBaazvXe4Gq2DcJs5q+",
      false,
    ],
    [
      "Missing X-Signature header",
      { Date: "Thu 07 Sep 2017 06:30:04 UTC" },
      "bilFGi4ZVZUdG+C6r0NIM9tuRq6PaG33R3eBUVhLwMAErGBaazvXe4Gq2DcJs5q+",
      false,
    ],
    [
      "Missing signing key",
      { Date: "Thu 07 Sep 2017 06:30:04 UTC", "X-Signature": "48e395e38ac48988929167df531eb2da00063a7d" },
      "",
      false,
    ],
  ];
  const then = { softFailures: false, now: () => new Date("2017-09-07T06:31:00Z") };
  for (const [desc, headers, secret, ok] of rows) {
    const r = evaluateRule(
      rule({ match: { type: "scalr-signature", secret } }),
      request({ headers, rawBody: Buffer.from('{"a": "b"}') }),
      then,
    );
    assert.equal(r.ok, ok, desc);
    if (r.error !== undefined && secret !== "")
      assert.doesNotMatch(r.error.message, /48e395e38ac48988929167df531eb2da00063a7d/);
  }
  // Five minutes and a second later it is outdated: upstream's SignatureError{Signature: "outdated"}.
  const late = { softFailures: false, now: () => new Date("2017-09-07T06:35:05Z") };
  const [, headers, secret] = rows[0] as (typeof rows)[number];
  const r = evaluateRule(
    rule({ match: { type: "scalr-signature", secret } }),
    request({ headers, rawBody: Buffer.from('{"a": "b"}') }),
    late,
  );
  assert.ok(r.error instanceof SignatureError);
  assert.equal(r.error.message, "invalid payload signature outdated");
});

test("Scalr dates as Go's time.Parse reads them, with its error texts (as the peer logged them)", () => {
  assert.equal(parseScalrDate("Thu 07 Sep 2017 06:30:04 UTC").toISOString(), "2017-09-07T06:30:04.000Z");
  // Any abbreviation, GMT-3 included, leaves the wall time as UTC; runs of spaces, any case, fractions pass.
  assert.equal(parseScalrDate("thu 07 sep 2017 06:30:04 EST").toISOString(), "2017-09-07T06:30:04.000Z");
  assert.equal(parseScalrDate("Thu 07 Sep 2017 06:30:04 GMT-3").toISOString(), "2017-09-07T06:30:04.000Z");
  assert.equal(parseScalrDate("Thu 07 Sep 2017 6:30:04.25    UTC").toISOString(), "2017-09-07T06:30:04.250Z");
  const refused: [string, string][] = [
    [
      "Thu 7 Sep 2017 06:30:04 UTC",
      'parsing time "Thu 7 Sep 2017 06:30:04 UTC" as "Mon 02 Jan 2006 15:04:05 MST": cannot parse "7 Sep 2017 06:30:04 UTC" as "02"',
    ],
    [
      "Saturday 28 Nov 2026 17:44:52.5 utc",
      'parsing time "Saturday 28 Nov 2026 17:44:52.5 utc" as "Mon 02 Jan 2006 15:04:05 MST": cannot parse "urday 28 Nov 2026 17:44:52.5 utc" as " "',
    ],
    ["thu 31 feb 2017 06:30:04 UTC", 'parsing time "thu 31 feb 2017 06:30:04 UTC": day out of range'],
    ["Sat 28 Nov 2026 17:44:52  CEST x", 'parsing time "Sat 28 Nov 2026 17:44:52  CEST x": extra text: " x"'],
    ["Sat 28 Nov 2026 24:00:00 UTC", 'parsing time "Sat 28 Nov 2026 24:00:00 UTC": hour out of range'],
  ];
  for (const [value, message] of refused) assert.throws(() => parseScalrDate(value), { message });
});

test("a Scalr date Go cannot parse is a rule error, not a signature one: 500 even inside a soft `or`", () => {
  const date = "Thu 7 Sep 2017 06:30:04 UTC";
  const body = Buffer.from("{}");
  const signature = createHmac("sha1", "s")
    .update(Buffer.concat([body, Buffer.from(date)]))
    .digest("hex");
  const soft = rule({
    or: [
      { match: { type: "scalr-signature", secret: "s" } },
      { match: { type: "value", value: "x", parameter: { source: "header", name: "X-V" } } },
    ],
  });
  const r = evaluateRule(
    soft,
    request({ headers: { Date: date, "X-Signature": signature, "X-V": "x" }, rawBody: body }),
    {
      ...opts,
      softFailures: true,
    },
  );
  assert.equal(r.ok, false);
  assert.ok(r.error !== undefined && !(r.error instanceof SignatureError));
  assert.match(r.error.message, /^parsing time /);
});

test("upstream checkIPWhitelistTests and the ip-whitelist rows of matchRuleTests", () => {
  const rows: [string, string, boolean, boolean][] = [
    ["[ 10.0.0.1:1234 ] ", "  10.0.0.1 ", true, true],
    ["[ 10.0.0.1:1234 ] ", "  10.0.0.0 ", false, true],
    ["[ 10.0.0.1:1234 ] ", "  10.0.0.1 10.0.0.1 ", true, true],
    ["[ 10.0.0.1:1234 ] ", "  10.0.0.0/31 ", true, true],
    [" [2001:db8:1:2::1:1234] ", "  2001:db8:1::/48 ", true, true],
    [" [2001:db8:1:2::1:1234] ", "  2001:db8:1::/48 2001:db8:1::/64", true, true],
    [" [2001:db8:1:2::1:1234] ", "  2001:db8:1::/64 ", false, true],
    ["192.168.0.2:9000", "192.168.0.1/24", true, true],
    ["192.168.0.1:9000", "192.168.0.1", true, true],
    ["[::1]:9000", "::1/24", true, true],
    ["[::1]:9000", "::1", true, true],
    ["192.168.0.2:9000", "192.168.0.1/a", false, false],
    ["192.168.0.2:9000", "192.168.0.a", false, false],
    ["192.168.0.a:9000", "192.168.0.1/24", false, false],
    ["[::1]:9000", "::1/a", false, false],
    ["[::1]:9000", "::z", false, false],
    ["[::z]:9000", "::1/24", false, false],
  ];
  for (const [remoteAddr, range, expect, ok] of rows) {
    const r = evaluateRule(
      rule({ match: { type: "ip-whitelist", "ip-range": range } }),
      request({ remoteAddr }),
      opts,
    );
    assert.deepEqual([r.ok, r.error === undefined], [expect, ok], JSON.stringify([remoteAddr, range]));
  }
});

test("upstream extractParameterTests and TestGetParameter", () => {
  const rows: [string, unknown, string | undefined][] = [
    ["a", { a: "z" }, "z"],
    ["a.b", { a: { b: "z" } }, "z"],
    ["a.b.c", { a: { b: { c: "z" } } }, "z"],
    ["a.b.0", { a: { b: ["x", "y", "z"] } }, "x"],
    ["a.1.b", { a: [{ b: "y" }, { b: "z" }] }, "z"],
    ["a.1.b.c", { a: [{ b: { c: "y" } }, { b: { c: "z" } }] }, "z"],
    ["b", { b: { z: 1 } }, '{"z":1}'],
    ["c", { c: ["y", "z"] }, '["y","z"]'],
    ["a.b", { "a.b": "1" }, "1"],
    ["a.1", { a: { 1: 3 } }, "3"],
    ["0", ["a", "b"], "a"],
    ["check_nil", null, undefined],
    ["a.X", { a: { b: "z" } }, undefined],
    ["a.X.c", { a: [{ b: "y" }, { b: "z" }] }, undefined],
    ["a.-1.b", { a: [{ b: "y" }, { b: "z" }] }, undefined],
    ["a.500.b", { a: { b: "z" } }, undefined],
    ["a.501.b", { a: [{ b: "y" }, { b: "z" }] }, undefined],
    ["a.502.b", { a: [] }, undefined],
    ["a.b.503", { a: { b: ["x", "y", "z"] } }, undefined],
    ["a.b", "a", undefined],
    ["z.b", { a: { z: 2 } }, undefined],
    ["a.2", { a: ["a", "b"] }, undefined],
  ];
  for (const [key, node, expected] of rows) {
    let got: string | undefined;
    try {
      const v = getParameter(key, node);
      got = typeof v === "string" ? v : goMarshal(v);
    } catch (e) {
      assert.ok(e instanceof ParameterNodeError, key);
    }
    assert.equal(got, expected, key);
  }
});

test("upstream matchRuleTests (value, regex, signatures) and the and/or/not tables", () => {
  const header = (name: string) => ({ source: "header", name });
  const v = (value: string, name: string) => ({ match: { type: "value", value, parameter: header(name) } });
  const body = Buffer.from('{"a": "z"}');
  const rows: [unknown, Record<string, string>, Buffer, boolean, boolean][] = [
    [v("z", "a"), { A: "z" }, Buffer.alloc(0), true, false],
    [
      { match: { type: "regex", regex: "^z", parameter: header("a") } },
      { A: "z" },
      Buffer.alloc(0),
      true,
      false,
    ],
    [
      { match: { type: "payload-hmac-sha1", secret: "secret", parameter: header("a") } },
      { A: "b17e04cbb22afa8ffbff8796fc1894ed27badd9e" },
      body,
      true,
      false,
    ],
    [
      { match: { type: "payload-hash-sha1", secret: "secret", parameter: header("a") } },
      { A: "b17e04cbb22afa8ffbff8796fc1894ed27badd9e" },
      body,
      true,
      false,
    ],
    [
      { match: { type: "payload-hmac-sha256", secret: "secret", parameter: header("a") } },
      { A: "f417af3a21bd70379b5796d5f013915e7029f62c580fb0f500f59a35a6f04c89" },
      body,
      true,
      false,
    ],
    [
      { match: { type: "payload-hash-sha256", secret: "secret", parameter: header("a") } },
      { A: "f417af3a21bd70379b5796d5f013915e7029f62c580fb0f500f59a35a6f04c89" },
      body,
      true,
      false,
    ],
    [v("X", "a"), { A: "z" }, Buffer.alloc(0), false, false],
    [
      { match: { type: "regex", regex: "^X", parameter: header("a") } },
      { A: "z" },
      Buffer.alloc(0),
      false,
      false,
    ],
    [v("X", "a"), { Y: "z" }, Buffer.alloc(0), false, true],
    [
      { match: { type: "regex", regex: "*", parameter: header("a") } },
      { A: "z" },
      Buffer.alloc(0),
      false,
      true,
    ],
    ...["sha1", "sha256", "sha512"].flatMap(
      (alg): [unknown, Record<string, string>, Buffer, boolean, boolean][] => [
        [
          { match: { type: `payload-hmac-${alg}`, secret: "secret", parameter: header("a") } },
          { A: "" },
          Buffer.alloc(0),
          false,
          true,
        ],
        [
          { match: { type: `payload-hash-${alg}`, secret: "secret", parameter: header("a") } },
          { A: "" },
          Buffer.alloc(0),
          false,
          true,
        ],
      ],
    ),
    // andRuleTests
    [{ and: [v("z", "a"), v("y", "b")] }, { A: "z", B: "y" }, Buffer.alloc(0), true, false],
    [{ and: [v("z", "a"), v("y", "b")] }, { A: "z", B: "Y" }, Buffer.alloc(0), false, false],
    [
      {
        and: [
          v("z", "a"),
          { and: [v("y", "b"), v("x", "c")] },
          { or: [v("w", "d"), v("v", "e")] },
          { not: v("u", "f") },
        ],
      },
      { A: "z", B: "y", C: "x", D: "w", E: "X", F: "X" },
      Buffer.alloc(0),
      true,
      false,
    ],
    [{ and: [{}] }, {}, Buffer.alloc(0), false, false],
    [{ and: [v("X", "a")] }, { Y: "z" }, Buffer.alloc(0), false, true],
    // orRuleTests
    [{ or: [v("z", "a"), v("y", "b")] }, { A: "z", B: "X" }, Buffer.alloc(0), true, false],
    [{ or: [v("z", "a"), v("y", "b")] }, { A: "X", B: "y" }, Buffer.alloc(0), true, false],
    [{ or: [v("z", "a"), v("y", "b")] }, { A: "Z", B: "Y" }, Buffer.alloc(0), false, false],
    [{ or: [v("z", "a")] }, { Y: "Z" }, Buffer.alloc(0), false, false],
    // notRuleTests
    [{ not: v("X", "a") }, { A: "z" }, Buffer.alloc(0), true, false],
    [{ not: v("z", "a") }, { A: "z" }, Buffer.alloc(0), false, false],
  ];
  for (const [json, headers, rawBody, ok, err] of rows) {
    const r = evaluateRule(rule(json), request({ headers, rawBody }), opts);
    assert.deepEqual([r.ok, r.error !== undefined], [ok, err], JSON.stringify(json));
  }
});
