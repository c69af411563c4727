// Go strings as byte strings: UTF-8 in and out, rune decoding as utf8.DecodeRuneInString, unicode.IsPrint.
import assert from "node:assert/strict";
import { test } from "node:test";
import { answer } from "../../../test/support/go-template-fixtures.js";
import {
  decodeRune,
  encodeRune,
  formatRuneU,
  fromBytes,
  isDigit,
  isLetter,
  isPrint,
  lastRuneWidth,
  runeCount,
  toBytes,
} from "./go-text.js";

test("text to bytes and back; bytes that are not UTF-8 become U+FFFD", () => {
  assert.equal(toBytes("é"), "\xc3\xa9");
  assert.equal(fromBytes("\xc3\xa9"), "é");
  assert.equal(fromBytes("a\xc3"), "a\ufffd");
  assert.equal(encodeRune(0x1f600), toBytes("😀"));
  assert.equal(encodeRune(0xd800), toBytes("\ufffd"));
});

test("decodeRune and runeCount as Go's utf8 package (invalid bytes count one each)", () => {
  assert.deepEqual(decodeRune(toBytes("😀"), 0), { code: 0x1f600, width: 4 });
  assert.deepEqual(decodeRune("\xc3(", 0), { code: 0xfffd, width: 1 });
  assert.deepEqual(decodeRune("\xed\xa0\x80", 0), { code: 0xfffd, width: 1 }); // a surrogate
  assert.deepEqual(decodeRune("\xc0\x80", 0), { code: 0xfffd, width: 1 }); // overlong
  assert.equal(runeCount(toBytes("héllo")), 5);
  assert.equal(runeCount("\xff\xfe"), 2);
  assert.equal(lastRuneWidth(toBytes("aé"), 3), 2);
  assert.equal(lastRuneWidth("a\xa9", 2), 1);
});

test("IsPrint and %#U", () => {
  assert.equal(isPrint(0x20), true);
  assert.equal(isPrint(0xa0), false);
  assert.equal(isPrint(0x7f), false);
  assert.equal(isPrint(0x263a), true);
  assert.equal(formatRuneU(0x29), "U+0029 ')'");
  assert.equal(formatRuneU(0x01), "U+0001");
});

test("Unicode is Go 1.19's (13.0.0): what Node's newer tables add is neither printable, a letter nor a digit", () => {
  // Go 1.19.8's unicode package: U+13E04 (Egyptian Hieroglyphs Ext.-A), U+0870 (Arabic Ext.-B), U+1FAE0 (an emoji
  // of Unicode 14), U+11F50 (a Kawi digit of 15) came after 13.0.0; U+1F600 and é did not.
  for (const code of [0x13e04, 0x870, 0x1fae0, 0x11f50]) {
    assert.equal(isPrint(code), false, code.toString(16));
    assert.equal(isLetter(code) || isDigit(code), false, code.toString(16));
  }
  assert.equal(isPrint(0x1f600) && isPrint(0xe9) && isLetter(0xe9) && isDigit(0x669), true);
  assert.deepEqual(answer('{{ printf "%q %#U" "\\U00013E04" 81412 }}{{ js "\\u0870" }}'), {
    template: '{{ printf "%q %#U" "\\U00013E04" 81412 }}{{ js "\\u0870" }}',
    out: '"\\U00013e04" U+13E04\\u0870',
  });
});
