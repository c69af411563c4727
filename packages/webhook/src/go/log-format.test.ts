import assert from "node:assert/strict";
import { test } from "node:test";
import { goQuote } from "@local/go-compat/quote";
import { goQuoteList, iBytes } from "./log-format.js";

test("goQuote escapes as Go's strconv.Quote", () => {
  assert.equal(goQuote('a"b\\c'), '"a\\"b\\\\c"');
  assert.equal(goQuote("x\ny\t\u0001\u007f"), '"x\\ny\\t\\x01\\x7f"');
  assert.equal(goQuote("é✓"), '"é✓"');
  assert.equal(goQuoteList(["/bin/echo", "a b"]), '["/bin/echo" "a b"]');
});

test("iBytes renders like go-humanize IBytes", () => {
  assert.equal(iBytes(2), "2 B");
  assert.equal(iBytes(274), "274 B");
  assert.equal(iBytes(1495), "1.5 KiB");
  assert.equal(iBytes(20 * 1024 * 1024), "20 MiB");
});
