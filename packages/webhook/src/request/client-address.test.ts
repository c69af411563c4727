import assert from "node:assert/strict";
import { test } from "node:test";
import { parseTrustedProxies, TrustedProxies } from "./client-address.js";

const proxies = (text: string) => {
  const ranges = parseTrustedProxies(text);
  assert.ok(Array.isArray(ranges), JSON.stringify(ranges));
  return new TrustedProxies(ranges);
};

test("the client is the rightmost untrusted address, only when the socket's peer is a trusted proxy", () => {
  const t = proxies("127.0.0.1, 10.0.0.0/8,::1");
  const cases: [string, Record<string, string[]>, string][] = [
    // From a trusted proxy.
    ["127.0.0.1:5000", { "x-forwarded-for": ["203.0.113.7"] }, "203.0.113.7"],
    ["127.0.0.1:5000", { "x-forwarded-for": ["198.51.100.9, 203.0.113.7"] }, "203.0.113.7"],
    ["127.0.0.1:5000", { "x-forwarded-for": ["198.51.100.9", "203.0.113.7, 10.1.2.3"] }, "203.0.113.7"],
    ["[::1]:5000", { "x-forwarded-for": ["2001:db8::1"] }, "2001:db8::1"],
    ["[::ffff:127.0.0.1]:5000", { "x-forwarded-for": ["::ffff:203.0.113.7"] }, "203.0.113.7"],
    ["127.0.0.1:5000", { "x-forwarded-for": ["10.0.0.1, 127.0.0.1"] }, "10.0.0.1"],
    ["127.0.0.1:5000", { "x-forwarded-for": ["203.0.113.7:4711"] }, "203.0.113.7"],
    ["127.0.0.1:5000", { "x-forwarded-for": ["[2001:db8::1]:4711"] }, "2001:db8::1"],
    ["127.0.0.1:5000", { forwarded: ["for=203.0.113.7;proto=https;by=10.0.0.1"] }, "203.0.113.7"],
    [
      "127.0.0.1:5000",
      { forwarded: ['for=198.51.100.9, For="[2001:db8:cafe::17]:4711"'] },
      "2001:db8:cafe::17",
    ],
    ["127.0.0.1:5000", { forwarded: ["for=198.51.100.9", "for=10.0.0.2"] }, "198.51.100.9"],
    ["127.0.0.1:5000", { forwarded: ["for=203.0.113.7"], "x-forwarded-for": ["203.0.113.7"] }, "203.0.113.7"],
    // From anyone else the headers change nothing.
    ["192.0.2.1:5000", { "x-forwarded-for": ["203.0.113.7"] }, "192.0.2.1:5000"],
    ["[2001:db8::2]:5000", { forwarded: ["for=203.0.113.7"] }, "[2001:db8::2]:5000"],
    ["@", { "x-forwarded-for": ["203.0.113.7"] }, "@"],
    // No header, or one that cannot be read with certainty: the socket's address.
    ["127.0.0.1:5000", {}, "127.0.0.1:5000"],
    ["127.0.0.1:5000", { "x-forwarded-for": ["not-an-ip"] }, "127.0.0.1:5000"],
    ["127.0.0.1:5000", { "x-forwarded-for": ["203.0.113.7, garbage"] }, "127.0.0.1:5000"],
    ["127.0.0.1:5000", { "x-forwarded-for": [""] }, "127.0.0.1:5000"],
    ["127.0.0.1:5000", { forwarded: ["for=unknown"] }, "127.0.0.1:5000"],
    ["127.0.0.1:5000", { forwarded: ["for=_hidden"] }, "127.0.0.1:5000"],
    ["127.0.0.1:5000", { forwarded: ['for="203.0.113.7'] }, "127.0.0.1:5000"],
    ["127.0.0.1:5000", { forwarded: ["for=203.0.113.7;for=198.51.100.9"] }, "127.0.0.1:5000"],
    ["127.0.0.1:5000", { forwarded: ["proto=https"] }, "127.0.0.1:5000"],
    ["127.0.0.1:5000", { forwarded: ["for=2001:db8::1"] }, "127.0.0.1:5000"],
    // An IPv6 zone (seen in test/extensions-fuzz.test.ts's chains: it was taken, and 2001:db8::1%25x matched 2001:db8::/32).
    ["127.0.0.1:5000", { "x-forwarded-for": ["2001:db8::1%25x"] }, "127.0.0.1:5000"],
    ["127.0.0.1:5000", { "x-forwarded-for": ["fe80::1%eth0"] }, "127.0.0.1:5000"],
    ["127.0.0.1:5000", { forwarded: ['for="[2001:db8::1%eth0]:80"'] }, "127.0.0.1:5000"],
    // Both headers, disagreeing: a proxy that sets one passes a forged other on.
    [
      "127.0.0.1:5000",
      { forwarded: ["for=198.51.100.9"], "x-forwarded-for": ["203.0.113.7"] },
      "127.0.0.1:5000",
    ],
  ];
  for (const [remote, headers, want] of cases)
    assert.equal(t.clientAddress(remote, headers), want, `${remote} ${JSON.stringify(headers)}`);
});

test("-trusted-proxies entries that are no address or CIDR are refused, naming the entry", () => {
  for (const bad of [
    "",
    " , ",
    "localhost",
    "10.0.0.0/33",
    "::/129",
    "10.0.0.0/8/1",
    "10.0.0.0/x",
    "1.2.3.4:80",
  ]) {
    const parsed = parseTrustedProxies(bad);
    assert.ok(!Array.isArray(parsed), bad);
  }
  assert.deepEqual(parseTrustedProxies("localhost"), {
    error: '"localhost" is not an IP address or CIDR (as 10.0.0.0/8 or ::1)',
  });
  assert.deepEqual(parseTrustedProxies(" 10.0.0.0/8 ,::1,fd00::/8"), ["10.0.0.0/8", "::1", "fd00::/8"]);
});
