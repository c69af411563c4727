import assert from "node:assert/strict";
import { test } from "node:test";
import { parseMediaType } from "./media-type.js";

const parsed = (header: string) => {
  const media = parseMediaType(header);
  return "error" in media ? undefined : [media.type, Object.fromEntries(media.params)];
};

// Cases of Go's mime/mediatype_test.go (TestParseMediaType, badMediaTypeTests) and current Go's rule that a repeated
// parameter is an error only when the values differ.
test("parseMediaType() reads a Content-Type as Go's mime.ParseMediaType", () => {
  assert.deepEqual(parsed("text/html; charset=utf-8"), ["text/html", { charset: "utf-8" }]);
  assert.deepEqual(parsed('Form-Data; Name="foo bar"'), ["form-data", { name: "foo bar" }]);
  assert.deepEqual(parsed(' text/html ; CHARSET = "x\\"y" ;'), ["text/html", { charset: 'x"y' }]);
  assert.deepEqual(parsed('attachment; filename="C:\\dev\\go\\foo.txt"'), [
    "attachment",
    { filename: "C:\\dev\\go\\foo.txt" },
  ]);
  assert.deepEqual(parsed("garbage"), ["garbage", {}]);
  assert.deepEqual(parsed("text/html; charset=utf-8; charset=utf-8"), ["text/html", { charset: "utf-8" }]);
  for (const bad of [
    "",
    "bogus/<script>",
    "application/vnd.google.protobuf/x",
    "text/html; charset=utf-8; charset=iso-8859-1",
    "text/html; ; charset=utf-8",
    "text/html; charset",
    "text/html; charset=",
    'text/html; charset="utf-8',
    "attachment; filename=foo bar.html",
  ])
    assert.equal(parsed(bad), undefined, bad);
});
