import assert from "node:assert/strict";
import { test } from "node:test";
import { goJson, goStruct } from "./go-json.js";

test("goJson sorts keys at every level and keeps array order", () => {
  assert.equal(goJson({ b: 1, a: [{ z: 1, y: 2 }, 3] }), '{"a":[{"y":2,"z":1},3],"b":1}');
});

test("goJson escapes HTML characters as Go does", () => {
  assert.equal(goJson({ k: "<a>&\u2028" }), '{"k":"\\u003ca\\u003e\\u0026\\u2028"}');
});

test("goJson keeps the field order of structs", () => {
  assert.equal(
    goJson(goStruct({ status: "success", data: { b: 1, a: 2 } })),
    '{"status":"success","data":{"a":2,"b":1}}',
  );
});
