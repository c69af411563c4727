import assert from "node:assert/strict";
import { test } from "node:test";
import { parseJsonKeepingFloats } from "./float.js";
import { comparePythonStrings, pythonNumber, pythonStr, pythonStringRepr } from "./repr.js";

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
  assert.equal(pythonNumber(-0, { float: true }), "-0.0");
  assert.equal(pythonNumber(-0), "0");
});

// Expected strings are what Python 3.11 prints for str()/repr() of json.loads() of the same JSON text.
const strCases: [string, string][] = [
  ['["a", "b\'c", 1.0, null, true, 2]', "['a', \"b'c\", 1.0, None, True, 2]"],
  ['{"k": "v\\"x", "n": [1, 2.5]}', "{'k': 'v\"x', 'n': [1, 2.5]}"],
  [
    '["\\u00e9\\n\\u0001\\t\\\\", "\\u00a0\\u2028 \\ud83d\\ude00"]',
    "['é\\n\\x01\\t\\\\', '\\xa0\\u2028 😀']",
  ],
  ['["both \' and \\""]', "['both \\' and \"']"],
  ["1e16", "1e+16"],
  ["false", "False"],
];
for (const [json, expected] of strCases) {
  test(`pythonStr() prints ${json} as Python's str() ${expected}`, () => {
    assert.equal(pythonStr(parseJsonKeepingFloats(json)), expected);
  });
}

test("pythonStringRepr() escapes a lone surrogate as Python does", () => {
  assert.equal(pythonStringRepr("\ud800"), "'\\ud800'");
});

test("comparePythonStrings() orders by code point, astral characters after U+FFFF's neighbours", () => {
  const keys = ["\uffff", "\u{1f600}", "b", "a", "ab", "\ue000"];
  assert.deepEqual(keys.sort(comparePythonStrings), ["a", "ab", "b", "\ue000", "\uffff", "\u{1f600}"]);
});
