import assert from "node:assert/strict";
import { test } from "node:test";
import { escapeHtml } from "./escape-html.js";

test("escapeHtml escapes ampersands first, then angle brackets and double quotes", () => {
  assert.equal(escapeHtml(`a&lt;<b>"c"'`), "a&amp;lt;&lt;b&gt;&quot;c&quot;'");
});
