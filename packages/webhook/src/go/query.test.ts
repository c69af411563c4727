import assert from "node:assert/strict";
import { test } from "node:test";
import { goParseQuery } from "./query.js";

const plain = (r: { values: Record<string, string> }) => ({ ...r.values });

test("first value per key, '+' as space, escapes decoded, empty pairs skipped", () => {
  const r = goParseQuery("q=a+b%21&q=second&&=empty-key&flag&x=%C3%A9");
  assert.deepEqual(plain(r), { q: "a b!", "": "empty-key", flag: "", x: "é" });
  assert.equal(r.error, undefined);
});

test("characters past U+FFFF sent raw (a form body in UTF-8) stay whole", () => {
  const r = goParseQuery("😀=a😀b&k=%F0%9F%98%80");
  assert.deepEqual(plain(r), { "😀": "a😀b", k: "😀" });
});

test("pairs with ';' or a bad escape are skipped and the first error reported", () => {
  const r = goParseQuery("a=1;b=2&c=%zz&d=4&%g=5");
  assert.deepEqual(plain(r), { d: "4" });
  assert.equal(r.error, "invalid semicolon separator in query");
  assert.equal(goParseQuery("c=%z&d=4").error, 'invalid URL escape "%z"');
});
