import assert from "node:assert/strict";
import { test } from "node:test";
import { parseKingpinDuration, parseKingpinDurationNs } from "./kingpin-duration.js";

const ns = 1n;
const us = 1_000n * ns;
const ms = 1_000n * us;
const s = 1_000n * ms;
const m = 60n * s;
const h = 60n * m;

// xhit/go-str2duration v2.1.0 str2duration_test.go TestParseString, the parser of kingpin v2.4's duration flags.
const UPSTREAM: [string, bigint][] = [
  ["1h", h],
  ["1m", m],
  ["1s", s],
  ["1ms", ms],
  ["1µs", us],
  ["1us", us],
  ["1ns", ns],
  ["4.000000001s", 4n * s + ns],
  ["1h0m4.000000001s", h + 4n * s + ns],
  ["1h1m0.01s", 61n * m + 10n * ms],
  ["1h1m0.123456789s", 61n * m + 123456789n * ns],
  ["1.00002ms", ms + 20n * ns],
  ["1.00000002s", s + 20n * ns],
  ["693ns", 693n * ns],
  ["10s1us693ns", 10n * s + us + 693n * ns],
  ["1ms1ns", ms + ns],
  ["1s20ns", s + 20n * ns],
  ["60h8ms", 60n * h + 8n * ms],
  ["96h63s", 96n * h + 63n * s],
  ["2d3s96ns", 48n * h + 3n * s + 96n * ns],
  ["1w2d3s96ns", 168n * h + 48n * h + 3n * s + 96n * ns],
  ["1w2d3s3µs96ns", 168n * h + 48n * h + 3n * s + 3n * us + 96n * ns],
];

test("durations parse as str2duration's own test table says", () => {
  for (const [text, expected] of UPSTREAM) assert.equal(parseKingpinDurationNs(text), expected, text);
  assert.equal(parseKingpinDuration("5m"), 300_000);
  assert.equal(parseKingpinDuration("1.5h"), 5_400_000);
  assert.equal(parseKingpinDuration("0"), 0);
  assert.equal(parseKingpinDuration("-1s"), -1000);
});

// The texts Debian's prometheus-pushgateway prints after `error: ` for these --persistence.interval values (Go's
// time.ParseDuration in 1.5.1, whose texts str2duration copies).
test("bad durations are refused with Go's texts", () => {
  const cases: [string, string][] = [
    ["abc", 'time: invalid duration "abc"'],
    ["5", 'time: missing unit in duration "5"'],
    ["1x", 'time: unknown unit "x" in duration "1x"'],
    [".s", 'time: invalid duration ".s"'],
    ["", 'time: invalid duration ""'],
    ["1.5.h", 'time: missing unit in duration "1.5.h"'],
    ["1y", 'time: unknown unit "y" in duration "1y"'],
    ["5constructor", 'time: unknown unit "constructor" in duration "5constructor"'],
    ["1__proto__", 'time: unknown unit "__proto__" in duration "1__proto__"'],
    ["99999999999999999999h", 'time: invalid duration "99999999999999999999h"'],
  ];
  for (const [text, message] of cases) assert.throws(() => parseKingpinDuration(text), { message }, text);
});
