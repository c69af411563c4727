import assert from "node:assert/strict";
import { test } from "node:test";
import { goQuote, goQuoteRune } from "./go-quote.js";

test("goQuote escapes as Go's strconv.Quote", () => {
  assert.equal(goQuote("1\r"), '"1\\r"');
  assert.equal(goQuote('a"b\\c\td\n'), '"a\\"b\\\\c\\td\\n"');
  assert.equal(goQuote("\x01\x7f"), '"\\x01\\x7f"');
  assert.equal(goQuote("Προμηθεύς"), '"Προμηθεύς"');
  assert.equal(goQuote(""), '""');
});

test("goQuoteRune quotes one character with single quotes", () => {
  assert.equal(goQuoteRune("1"), "'1'");
  assert.equal(goQuoteRune("\n"), "'\\n'");
  assert.equal(goQuoteRune("'"), "'\\''");
});
