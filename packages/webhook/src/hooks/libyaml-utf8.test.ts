import assert from "node:assert/strict";
import { test } from "node:test";
import { libyamlUtf8Error } from "./libyaml-utf8.js";

test("UTF-8 passes; each kind of broken sequence gets libyaml's reader error", () => {
  assert.equal(libyamlUtf8Error("plain \xc3\xa9 \xe2\x98\xba \xf0\x9f\x98\x80"), undefined);
  assert.equal(libyamlUtf8Error("a\xc3b"), "invalid trailing UTF-8 octet"); // what Debian's webhook says (observed)
  assert.equal(libyamlUtf8Error("\xa9"), "invalid leading UTF-8 octet");
  assert.equal(libyamlUtf8Error("\xff"), "invalid leading UTF-8 octet");
  assert.equal(libyamlUtf8Error("a\xe2\x98"), "incomplete UTF-8 octet sequence");
  assert.equal(libyamlUtf8Error("\xc0\x80"), "invalid length of a UTF-8 sequence");
  assert.equal(libyamlUtf8Error("\xed\xa0\x80"), "invalid Unicode character");
  assert.equal(libyamlUtf8Error("\xf4\x90\x80\x80"), "invalid Unicode character");
});

test("a control character and a broken sequence: the first of them in the file is the one named, as libyaml reads", () => {
  // Debian's 2.8.0 on a template writing "\v" before `slice "😀" 2` (found by the template fuzzer, seed 2).
  assert.equal(libyamlUtf8Error("a\x0bb\xff"), "control characters are not allowed");
  assert.equal(libyamlUtf8Error("a\xffb\x0b"), "invalid leading UTF-8 octet");
  assert.equal(libyamlUtf8Error("\xc2\x85 \xc2\xa0 \xef\xbf\xbd \t\r\n"), undefined);
  assert.equal(libyamlUtf8Error("\xc2\x80"), "control characters are not allowed");
  assert.equal(libyamlUtf8Error("\xef\xbf\xbe"), "control characters are not allowed");
});
