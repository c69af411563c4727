import assert from "node:assert/strict";
import { test } from "node:test";
import { isoTime } from "./iso-time.js";

test("isoTime formats as Date.prototype.toISOString does", () => {
  const edges = [
    0, 1, 999, 1000, 951782400000, 1764339326951, 253402300799999, 253402300800000, -1, -62167219200000,
    -62167219200001, -1e12, 8.64e15, -8.64e15,
  ];
  const random = Array.from(
    { length: 2000 },
    () => Math.floor(Math.random() * 315569520000000) - 62167219200000,
  );
  const fractional = Array.from({ length: 200 }, () => Math.random() * 4e12);
  for (const ms of [...edges, ...random, ...fractional])
    assert.equal(isoTime(ms), new Date(ms).toISOString(), `${ms}`);
  assert.equal(isoTime(1764339326951), "2025-11-28T14:15:26.951Z");
  assert.equal(isoTime(253402300800000), "+010000-01-01T00:00:00.000Z");
});

test("isoTime of NaN throws as toISOString does", () => {
  assert.throws(() => isoTime(Number.NaN), RangeError);
});
