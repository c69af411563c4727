// text/template's isTrue (exec.go) over the values a template can hold, and their Go type names.
import assert from "node:assert/strict";
import { test } from "node:test";
import { bool, int, isTrue, NIL, str, typeName } from "./values.js";

test("the zero value of each kind is false, no value is false", () => {
  assert.equal(isTrue(undefined), false);
  assert.equal(isTrue(NIL), false);
  assert.equal(isTrue(str("")), false);
  assert.equal(isTrue(str("0")), true);
  assert.equal(isTrue(int(0)), false);
  assert.equal(isTrue(int(-1)), true);
  assert.equal(isTrue({ kind: "float64", v: 0 }), false);
  assert.equal(isTrue({ kind: "float64", v: Number.NaN }), true);
  assert.equal(isTrue({ kind: "complex128", re: 0, im: 1 }), true);
  assert.equal(isTrue({ kind: "uint8", v: 0 }), false);
  assert.equal(isTrue(bool(false)), false);
});

test("type names as reflect prints them", () => {
  assert.equal(typeName(int(1)), "int");
  assert.equal(typeName({ kind: "uint8", v: 1 }), "uint8");
  assert.equal(typeName(NIL), "<nil>");
});
