import assert from "node:assert/strict";
import { test } from "node:test";
import { goMarshal, goStruct } from "./json.js";

test("goMarshal() sorts map keys and escapes HTML as encoding/json does", () => {
  assert.equal(goMarshal({ b: 1, a: "<a&b>" }), '{"a":"\\u003ca\\u0026b\\u003e","b":1}');
  assert.equal(goMarshal({ z: [3, 1], y: { d: null, c: true } }), '{"y":{"c":true,"d":null},"z":[3,1]}');
  assert.equal(goMarshal("\u2028\u2029"), '"\\u2028\\u2029"');
});

test("goMarshal() keeps a goStruct's fields in the order written", () => {
  assert.equal(
    goMarshal(goStruct({ status: "success", data: { b: 2, a: 1 } })),
    '{"status":"success","data":{"a":1,"b":2}}',
  );
});

test("goMarshal() sorts keys by their UTF-8 bytes, not UTF-16 units", () => {
  // U+FF21 (EF BC A1) sorts before U+1F600 (F0 9F 98 80) in Go; in UTF-16, "\ud83d" < "\uff21".
  assert.equal(goMarshal({ "\u{1f600}": 1, "\uff21": 2 }), '{"\uff21":2,"\u{1f600}":1}');
});

test("goMarshal() writes a lone surrogate as the replacement character", () => {
  assert.equal(goMarshal("a\ud800b"), '"a\\ufffdb"');
});

test("goMarshal() keeps the text of a backslash followed by a surrogate's code (only real lone surrogates are replaced)", () => {
  // webhook's parity fuzzer found it: a form key `{"a":"\ud800x"}` passed as entire-payload, which Go writes as text.
  assert.equal(goMarshal("\\ud800x"), '"\\\\ud800x"');
  assert.equal(goMarshal("\\\ud800"), '"\\\\\\ufffd"');
  assert.equal(goMarshal({ "\\udc00": "\\\\ud800" }), '{"\\\\udc00":"\\\\\\\\ud800"}');
});

test("goMarshal() lets the caller write a number as its source text", () => {
  class Literal {
    readonly text: string;
    constructor(text: string) {
      this.text = text;
    }
  }
  const literal = (v: unknown) => (v instanceof Literal ? v.text : undefined);
  assert.equal(goMarshal({ n: new Literal("1.50") }, { literal }), '{"n":1.50}');
});

test("goMarshal() leaves out undefined fields and writes undefined as null", () => {
  assert.equal(goMarshal({ a: undefined, b: 1 }), '{"b":1}');
  assert.equal(goMarshal([undefined]), "[null]");
});

test("goMarshal() encodes a value with toJSON as that form", () => {
  assert.equal(goMarshal({ at: new Date(0) }), '{"at":"1970-01-01T00:00:00.000Z"}');
});
