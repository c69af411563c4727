import assert from "node:assert/strict";
import { test } from "node:test";
import { goDuration } from "./duration.js";

// Expected texts from Go's time.Duration.String() (time/time_test.go durationTests, and the values both servers print).
test("goDuration() renders nanoseconds as time.Duration.String does", () => {
  const cases: [number, string][] = [
    [0, "0s"],
    [1, "1ns"],
    [812, "812ns"],
    [1_100, "1.1µs"],
    [40_661, "40.661µs"],
    [1_000_000, "1ms"],
    [2_200_000, "2.2ms"],
    [14_873_410, "14.87341ms"],
    [250_000_000, "250ms"],
    [1_500_000_000, "1.5s"],
    [3_300_000_000, "3.3s"],
    [123_000_000_000, "2m3s"],
    [300_000_000_000, "5m0s"],
    [4 * 60e9 + 5_001_000_000, "4m5.001s"],
    [5 * 3600e9 + 6 * 60e9 + 7_001_000_000, "5h6m7.001s"],
    [8 * 60e9 + 1, "8m0.000000001s"],
  ];
  for (const [nanos, text] of cases) assert.equal(goDuration(nanos), text, String(nanos));
});
