// strconv quoting over byte strings against Go 1.19's strconv/quote_test.go tables
// (test/fixtures/go-template/go1.19-strconv-tables.json).
import assert from "node:assert/strict";
import { test } from "node:test";
import { goTemplateFixture } from "../../../test/support/go-template-fixtures.js";
import { canBackquote, ErrSyntax, quote, quoteRune, unquote, unquoteChar } from "./strconv.js";

interface Tables {
  readonly quote: [string, string, string][];
  readonly unquote: [string, string][];
  readonly misquoted: string[];
  readonly canBackquote: [string, boolean][];
}
const T = goTemplateFixture<Tables>("go1.19-strconv-tables.json");

test("Quote and QuoteToASCII (quotetests)", () => {
  assert.ok(T.quote.length >= 8);
  for (const [input, quoted, ascii] of T.quote) {
    assert.equal(quote(input), quoted, input);
    assert.equal(quote(input, true), ascii, input);
  }
});

test("Unquote (unquotetests) and its refusals (misquoted)", () => {
  assert.ok(T.unquote.length >= 30 && T.misquoted.length >= 25);
  for (const [input, want] of T.unquote) assert.equal(unquote(input), want, input);
  for (const input of T.misquoted) assert.throws(() => unquote(input), ErrSyntax, input);
});

test("CanBackquote (canbackquotetests)", () => {
  for (const [input, want] of T.canBackquote) assert.equal(canBackquote(input), want, input);
});

test("QuoteRune and UnquoteChar", () => {
  assert.equal(quoteRune(0x263a), "'\xe2\x98\xba'");
  assert.equal(quoteRune(0x263a, true), "'\\u263a'");
  assert.equal(quoteRune(0x0a), "'\\n'");
  assert.equal(quoteRune(0x27), "'\\''");
  assert.equal(quoteRune(0xd800), "'\xef\xbf\xbd'");
  assert.deepEqual(unquoteChar("\\x41rest", 0x22), { value: 0x41, multibyte: false, tail: "rest" });
  assert.deepEqual(unquoteChar("\\u263a", 0x27), { value: 0x263a, multibyte: true, tail: "" });
  assert.throws(() => unquoteChar("\\'", 0x22), ErrSyntax);
});
