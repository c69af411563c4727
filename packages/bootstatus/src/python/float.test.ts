import assert from "node:assert/strict";
import { test } from "node:test";
import { isPythonFloat, orderedEntries, orderedKeys, parseJsonKeepingFloats } from "./float.js";

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

test("parseJsonKeepingFloats() keeps the file's key order where JavaScript would move integer-like keys first", () => {
  const doc = parseJsonKeepingFloats(
    '{"b": {"WARNING": 1, "10": 2, "2": 3, "\\u0031": 4, "10": 5}, "a": {"x": 1.0, "y": [{"9": 0, "z": 0}]}}',
  ) as Record<string, Record<string, unknown>>;
  const b = doc.b ?? {};
  // A repeated key keeps its first place and takes its last value, as in a Python dict.
  assert.deepEqual(orderedKeys(b), ["WARNING", "10", "2", "1"]);
  assert.deepEqual(orderedEntries(b), [
    ["WARNING", 1],
    ["10", 5],
    ["2", 3],
    ["1", 4],
  ]);
  assert.deepEqual(Object.keys(b).sort(), ["1", "10", "2", "WARNING"]);
  const inner = ((doc.a?.y ?? []) as Record<string, unknown>[])[0] ?? {};
  assert.deepEqual(orderedKeys(inner), ["9", "z"]);
  // Objects without such keys carry no order of their own; nothing of the marker is left in any object.
  assert.deepEqual(orderedKeys(doc.a ?? {}), ["x", "y"]);
  assert.ok(!JSON.stringify(doc).includes("keyOrder"));
});
