// The builtins of Go 1.19's text/template (funcs.go) called directly: comparisons (cmpTests of exec_test.go where
// they apply), index, slice, len, and the escapers (html, js, urlquery as HTMLEscapeString, JSEscapeString and
// url.QueryEscape).
import assert from "node:assert/strict";
import { test } from "node:test";
import { BUILTINS, FuncError } from "./builtins.js";
import { toBytes } from "./go-text.js";
import { bool, type GoValue, int, NIL, str, type Value } from "./values.js";

function call(name: string, ...args: Value[]): Value {
  const fn = BUILTINS.get(name);
  assert.ok(fn !== undefined, name);
  return fn.call(args);
}
const f = (v: number): GoValue => ({ kind: "float64", v });
const u8 = (v: number): GoValue => ({ kind: "uint8", v });

test("comparisons (exec_test.go cmpTests)", () => {
  const T = bool(true);
  const F = bool(false);
  assert.deepEqual(call("eq", bool(true), bool(true)), T);
  assert.deepEqual(call("eq", int(1), int(2), int(3), int(1)), T);
  assert.deepEqual(call("eq", f(1.5), f(1.5)), T);
  assert.deepEqual(call("eq", str("xy"), str("xy")), T);
  assert.deepEqual(call("eq", u8(97), int(97)), T);
  assert.deepEqual(call("eq", int(-1), u8(255)), F);
  assert.deepEqual(call("eq", undefined, undefined), T);
  assert.deepEqual(call("eq", undefined, str("x")), F);
  assert.deepEqual(call("ne", int(1), int(2)), T);
  assert.deepEqual(call("lt", int(-1), u8(0)), T);
  assert.deepEqual(call("lt", str("a"), str("b")), T);
  assert.deepEqual(call("le", f(1.5), f(1.5)), T);
  assert.deepEqual(call("gt", str("b"), str("a")), T);
  assert.deepEqual(call("ge", int(1), int(2)), F);
  assert.throws(() => call("eq", int(1), str("1")), {
    name: "Error",
    message: "incompatible types for comparison",
  });
  assert.throws(() => call("lt", bool(true), bool(false)), FuncError);
  assert.throws(() => call("lt", undefined, int(1)), { message: "invalid type for comparison" });
  assert.throws(() => call("eq", int(1)), { message: "missing argument for comparison" });
});

test("index, slice and len over strings count bytes", () => {
  const s = str(toBytes("héllo"));
  assert.deepEqual(call("len", s), int(6));
  assert.deepEqual(call("index", s, int(1)), u8(0xc3));
  assert.deepEqual(call("slice", s, int(1), int(3)), str("\xc3\xa9"));
  assert.throws(() => call("index", s, int(6)), { message: "reflect: string index out of range" });
  assert.throws(() => call("index", s, int(7)), { message: "index out of range: 7" });
  assert.throws(() => call("slice", s, int(3), int(1)), { message: "invalid slice index: 3 > 1" });
  assert.throws(() => call("len", int(1)), { message: "len of type int" });
  assert.throws(() => call("call", str("f")), { message: "non-function of type string" });
});

test("escapers", () => {
  assert.deepEqual(
    call("html", str("<a href='x'>\"&\"\0</a>")),
    str("&lt;a href=&#39;x&#39;&gt;&#34;&amp;&#34;\xef\xbf\xbd&lt;/a&gt;"),
  );
  assert.deepEqual(
    call("js", str(toBytes("a'b\"c\\<>&=\t\u2028é"))),
    str(toBytes("a\\'b\\\"c\\\\\\u003C\\u003E\\u0026\\u003D\\u0009\\u2028é")),
  );
  assert.deepEqual(call("urlquery", str("a b&c=d/~")), str("a+b%26c%3Dd%2F~"));
  assert.deepEqual(call("html", NIL), str("&lt;no value&gt;"));
  assert.deepEqual(call("print", int(1), int(2), str("x")), str("1 2x"));
});
