import assert from "node:assert/strict";
import { test } from "node:test";
import { xorshift32 } from "../test/support/xorshift.js";
import { type Objective, WindowedSummary } from "./windowed-summary.js";

const OBJECTIVES: readonly Objective[] = [
  [0.1, 0.01],
  [0.5, 0.05],
  [0.9, 0.01],
];

/** The ranks `value` may occupy among `sorted` (1-based, first and last position of its run). */
function ranks(sorted: readonly number[], value: number): [number, number] {
  const first = sorted.indexOf(value);
  assert.ok(first >= 0, `estimate ${value} is not an observed value`);
  return [first + 1, sorted.lastIndexOf(value) + 1];
}

for (const [name, draw] of [
  ["uniform", (r: () => number) => r()],
  ["skewed (latencies)", (r: () => number) => -Math.log(1 - r()) * 0.002],
  ["few distinct values", (r: () => number) => Math.floor(r() * 7)],
] as const) {
  test(`WindowedSummary keeps each quantile within its rank error: ${name}`, () => {
    const summary = new WindowedSummary({ objectives: OBJECTIVES, now: () => 0 });
    const r = xorshift32(12345);
    const values: number[] = [];
    for (let i = 0; i < 50_000; i++) {
      const v = draw(r);
      values.push(v);
      summary.observe(v);
      // Reads in between, as scrapes do, flush part-filled batches.
      if (i % 7_919 === 0) summary.quantiles();
    }
    values.sort((a, b) => a - b);
    const n = values.length;
    for (const [q, estimate] of summary.quantiles()) {
      const error = OBJECTIVES.find(([oq]) => oq === q)?.[1] ?? 0;
      const [lo, hi] = ranks(values, estimate);
      assert.ok(
        hi >= Math.floor((q - error) * n) && lo <= Math.ceil((q + error) * n),
        `quantile ${q}: ${estimate} ranks ${lo}-${hi} of ${n}, allowed ${(q - error) * n}-${(q + error) * n}`,
      );
    }
    assert.equal(summary.count, n);
    assert.ok(Math.abs(summary.sum - values.reduce((a, b) => a + b, 0)) < 1e-6 * n);
  });
}

test("WindowedSummary answers a few observations exactly (nearest rank) and NaN before any", () => {
  const summary = new WindowedSummary({ objectives: OBJECTIVES, now: () => 0 });
  assert.deepEqual(
    summary.quantiles().map(([q, v]) => [q, Number.isNaN(v)]),
    [
      [0.1, true],
      [0.5, true],
      [0.9, true],
    ],
  );
  for (const v of [9, 3, 1, 10, 5, 7, 2, 8, 6, 4]) summary.observe(v);
  assert.deepEqual(summary.quantiles(), [
    [0.1, 1],
    [0.5, 5],
    [0.9, 9],
  ]);
  assert.equal(summary.count, 10);
  assert.equal(summary.sum, 55);
});

test("WindowedSummary forgets observations older than the window, one age bucket at a time", () => {
  let now = 1_000_000;
  const minute = 60_000;
  const summary = new WindowedSummary({ objectives: OBJECTIVES, now: () => now });
  for (let i = 0; i < 100; i++) summary.observe(1000);
  now += 8 * minute;
  for (let i = 0; i < 100; i++) summary.observe(1);
  now += 1.5 * minute;
  // 9.5 minutes on: the oldest stream still holds both runs.
  assert.equal(summary.quantiles()[2]?.[1], 1000);
  now += 0.5 * minute;
  // Exactly 10 minutes on: not yet (client_golang rotates strictly after the deadline).
  assert.equal(summary.quantiles()[2]?.[1], 1000);
  now += 1;
  // Past 10 minutes: the stream that saw the first run is emptied; the next one started 2 minutes in.
  assert.deepEqual(
    summary.quantiles().map(([, v]) => v),
    [1, 1, 1],
  );
  now += 10 * minute;
  assert.ok(summary.quantiles().every(([, v]) => Number.isNaN(v)));
  // Count and sum are not windowed (client_golang's neither).
  assert.equal(summary.count, 200);
  assert.equal(summary.sum, 100_100);
});

test("WindowedSummary stays small: a million observations keep a few hundred samples per stream", () => {
  const summary = new WindowedSummary({ objectives: OBJECTIVES, now: () => 0 });
  const r = xorshift32(7);
  for (let i = 0; i < 1_000_000; i++) summary.observe(r());
  summary.quantiles();
  assert.ok(summary.samples > 0 && summary.samples < 1000, `${summary.samples} samples`);
});
