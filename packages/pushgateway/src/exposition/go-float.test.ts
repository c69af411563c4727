import assert from "node:assert/strict";
import { test } from "node:test";
import { formatGoFloat } from "./go-float.js";

test("formats like Go's strconv.FormatFloat(v, 'g', -1, 64)", () => {
  const cases: [number, string][] = [
    [1234567, "1.234567e+06"],
    [100000, "100000"],
    [1e6, "1e+06"],
    [0.0001, "0.0001"],
    [0.00001, "1e-05"],
    [-2.5, "-2.5"],
    [1795423929.4260986, "1.7954239294260986e+09"],
    [Number.POSITIVE_INFINITY, "+Inf"],
    [Number.NaN, "NaN"],
    [0, "0"],
    // The decimal range written without an exponent (the fast path), at its edges and with long digit strings.
    [0.1 + 0.2, "0.30000000000000004"],
    [1 / 3, "0.3333333333333333"],
    [-0.00012345, "-0.00012345"],
    [999999.9999999999, "999999.9999999999"],
    [0.00009999, "9.999e-05"],
    [123.456, "123.456"],
  ];
  for (const [v, text] of cases) assert.equal(formatGoFloat(v), text, String(v));
});
