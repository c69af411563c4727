import assert from "node:assert/strict";
import { test } from "node:test";
import { pythonNumber } from "./format-cloud-init-json.js";

// Expected strings are Python 3's repr() of the same floats (json.dumps uses float.__repr__).
const cases: [number, string][] = [
  [124.456, "124.456"],
  [1710355584.3603137, "1710355584.3603137"],
  [0.0001, "0.0001"],
  [0.00001, "1e-05"],
  [1.5e-7, "1.5e-07"],
  [1.25e300, "1.25e+300"],
  [-2.5, "-2.5"],
  [124, "124"],
  [0, "0"],
];
for (const [n, expected] of cases) {
  test(`pythonNumber() prints ${n} as Python's repr ${expected}`, () => {
    assert.equal(pythonNumber(n), expected);
  });
}

test("pythonNumber() prints integral floats with .0 or an exponent, as Python", () => {
  assert.equal(pythonNumber(124, { float: true }), "124.0");
  assert.equal(pythonNumber(1e16, { float: true }), "1e+16");
  assert.equal(pythonNumber(-200, { float: true }), "-200.0");
});
