import assert from "node:assert/strict";
import { test } from "node:test";
import { detectContentType } from "./sniff.js";

const ct = (s: string) => detectContentType(Buffer.from(s, "latin1"));

test("HTML needs a tag terminator, ignores case and leading whitespace", () => {
  assert.equal(ct(" \n<html>x"), "text/html; charset=utf-8");
  assert.equal(ct("<!-- c -->"), "text/html; charset=utf-8");
  assert.equal(ct("<br"), "text/plain; charset=utf-8");
  assert.equal(ct("<h1x>"), "text/plain; charset=utf-8");
  assert.equal(ct("<P>para"), "text/html; charset=utf-8");
});

test("XML, PDF, images, archives, BOMs", () => {
  assert.equal(ct('  <?xml version="1.0"?>'), "text/xml; charset=utf-8");
  assert.equal(ct("%PDF-1.4"), "application/pdf");
  assert.equal(ct("\x89PNG\r\n\x1a\n"), "image/png");
  assert.equal(ct("\x1f\x8b\x08\x00"), "application/x-gzip");
  assert.equal(ct("\xfe\xffab"), "text/plain; charset=utf-16be");
  assert.equal(ct("\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"), "video/mp4");
});

test("text unless a control byte appears; otherwise octet-stream", () => {
  assert.equal(ct('{"a":1}\n'), "text/plain; charset=utf-8");
  assert.equal(ct("text\x07bell"), "application/octet-stream");
  assert.equal(ct("\x00\x01"), "application/octet-stream");
});
