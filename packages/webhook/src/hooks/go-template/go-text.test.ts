// Go strings as byte strings: UTF-8 in and out, rune decoding as utf8.DecodeRuneInString, unicode.IsPrint.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  decodeRune,
  encodeRune,
  formatRuneU,
  fromBytes,
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
