import assert from "node:assert/strict";
import { test } from "node:test";
import { goMarshal } from "./json.js";
import { decodeGoJson } from "./json-decode.js";

const marshal = (text: string) => {
  const d = decodeGoJson(text);
  return "value" in d ? goMarshal(d.value) : `error: ${d.error}`;
};

test("numbers keep their text; keys sort on output; the last duplicate key wins", () => {
  assert.equal(
    marshal('{"b":1.50,"a":[12345678901234567890,-0,1e3,2E-2],"a":"last"}'),
    '{"a":"last","b":1.50}',
  );
  assert.equal(marshal('[true,false,null,{"x":"\\u00e9\\n"}]'), '[true,false,null,{"x":"é\\n"}]');
});

test("only the first value is read: trailing data is ignored, as Go's Decoder does", () => {
  assert.equal(marshal(' {"a":1} trailing'), '{"a":1}');
  assert.equal(marshal('{"a":1}{"b":2}'), '{"a":1}');
});

test("lone surrogates become U+FFFD, pairs combine", () => {
  assert.equal(marshal('["\\ud800x","\\ud83d\\ude00"]'), '["\ufffdx","😀"]');
});

test("__proto__ is a plain key", () => {
  const d = decodeGoJson('{"__proto__":{"polluted":1}}');
  assert.ok("value" in d);
  assert.equal(goMarshal(d.value), '{"__proto__":{"polluted":1}}');
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test("syntax errors read like Go's", () => {
  assert.equal(marshal(""), "error: EOF");
  assert.equal(marshal("  \n"), "error: EOF");
  assert.equal(marshal('{"a": bad}'), "error: invalid character 'b' looking for beginning of value");
  assert.equal(marshal('{"a":1'), "error: unexpected EOF");
  assert.equal(marshal('{"a" 1}'), "error: invalid character '1' after object key");
  assert.equal(marshal('{"a":1 "b"}'), "error: invalid character '\"' after object key:value pair");
  assert.equal(marshal("[1 2]"), "error: invalid character '2' after array element");
  assert.equal(marshal("{a:1}"), "error: invalid character 'a' looking for beginning of object key string");
  assert.equal(marshal("01"), "0", "Go's Decoder stops after the first value, 0");
});
