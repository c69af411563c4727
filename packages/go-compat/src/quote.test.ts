import assert from "node:assert/strict";
import { test } from "node:test";
import { goQuote, goQuoteRune } from "./quote.js";

// Expected strings are Go's own: strconv/quote_test.go quotetests and quoterunetests (Go 1.22), plus cases both
// upstreams print (a CRLF body in pushgateway's parse errors, a header value in webhook's logs).
const QUOTE_CASES: [string | Uint8Array, string][] = [
  ["\x07\b\f\r\n\t\v", '"\\a\\b\\f\\r\\n\\t\\v"'],
  ["\\", '"\\\\"'],
  ["abc\xffdef", '"abc\u00ffdef"'],
  [Buffer.from([0x61, 0x62, 0x63, 0xff, 0x64, 0x65, 0x66]), '"abc\\xffdef"'],
  ["\u263a", '"\u263a"'],
  ["\u{10ffff}", '"\\U0010ffff"'],
  ["\x04", '"\\x04"'],
  ["!\u00a0!\u2000!\u3000!", '"!\\u00a0!\\u2000!\\u3000!"'],
  ["\x7f", '"\\x7f"'],
  ["1\r", '"1\\r"'],
  ['say "hi"', '"say \\"hi\\""'],
  ["it's", '"it\'s"'],
  ["\u00ad", '"\\u00ad"'],
  ["\u200b", '"\\u200b"'],
  ["\ufffd", '"\ufffd"'],
  ["\ud800", '"\\ufffd"'],
  [Buffer.from([0xe2, 0x82]), '"\\xe2\\x82"'],
  [Buffer.from("héllo"), '"héllo"'],
  ["", '""'],
];

test("goQuote() writes what strconv.Quote writes", () => {
  for (const [input, want] of QUOTE_CASES) assert.equal(goQuote(input), want, JSON.stringify(input));
});

test("goQuoteRune() writes what strconv.QuoteRune writes", () => {
  const cases: [string, string][] = [
    ["a", "'a'"],
    ["\x07", "'\\a'"],
    ["\\", "'\\\\'"],
    ["\xff", "'\u00ff'"],
    ["\u263a", "'\u263a'"],
    ["'", "'\\''"],
    ['"', "'\"'"],
    ["\n", "'\\n'"],
    ["\x00", "'\\x00'"],
  ];
  for (const [input, want] of cases) assert.equal(goQuoteRune(input), want, JSON.stringify(input));
});
