// item.String() as Go 1.19's parser prints tokens in its errors (parse/lex.go).
import assert from "node:assert/strict";
import { test } from "node:test";
import { itemString } from "./lex-item.js";

test("keywords in angle brackets, EOF and errors bare, other tokens quoted (at most ten runes)", () => {
  assert.equal(itemString({ type: "end", pos: 0, val: "end", line: 1 }), "<end>");
  assert.equal(itemString({ type: "dot", pos: 0, val: ".", line: 1 }), "<.>");
  assert.equal(itemString({ type: "EOF", pos: 0, val: "", line: 1 }), "EOF");
  assert.equal(itemString({ type: "error", pos: 0, val: "unclosed action", line: 1 }), "unclosed action");
  assert.equal(itemString({ type: "rightDelim", pos: 0, val: "}}", line: 1 }), '"}}"');
  assert.equal(itemString({ type: "string", pos: 0, val: '"0123456789abc"', line: 1 }), '"\\"012345678"...');
});
