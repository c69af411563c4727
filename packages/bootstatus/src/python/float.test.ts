import assert from "node:assert/strict";
import { test } from "node:test";
import { isPythonFloat, parseJsonKeepingFloats } from "./float.js";

test("parseJsonKeepingFloats() keeps integral floats apart from ints", () => {
  const doc = parseJsonKeepingFloats(
    '{"a": 124.0, "b": 124, "c": 1.5, "d": -2e2, "e": [3.00], "s": "7.0 \\" 8.0"}',
  );
  assert.deepEqual(doc, {
    a: { pythonFloat: 124 },
    b: 124,
    c: 1.5,
    d: { pythonFloat: -200 },
    e: [{ pythonFloat: 3 }],
    s: '7.0 " 8.0',
  });
  assert.ok(isPythonFloat((doc as { a: unknown }).a));
  assert.ok(!isPythonFloat(124));
});

test("parseJsonKeepingFloats() throws SyntaxError on invalid JSON like JSON.parse", () => {
  assert.throws(() => parseJsonKeepingFloats('{"v1": '), SyntaxError);
  assert.throws(() => parseJsonKeepingFloats("1.0.0"), SyntaxError);
});
