import assert from "node:assert/strict";
import { test } from "node:test";
import { goBase64Decode } from "./base64.js";

test("valid base64 decodes like Buffer, newlines skipped", () => {
  for (const s of ["", "aGk=", "aGVsbG8gd29ybGQ=", "YWI=", "YWJj", "YW\nJj\r\n"]) {
    assert.deepEqual(goBase64Decode(s), { bytes: Buffer.from(s.replace(/\s/g, ""), "base64") }, s);
  }
});

test("corrupt input keeps the quanta decoded before it and reports Go's offset", () => {
  assert.deepEqual(goBase64Decode("!!notb64"), {
    bytes: Buffer.alloc(0),
    error: "illegal base64 data at input byte 0",
  });
  assert.deepEqual(goBase64Decode("YWJj!"), {
    bytes: Buffer.from("abc"),
    error: "illegal base64 data at input byte 4",
  });
  assert.deepEqual(goBase64Decode("YWJjZA"), {
    bytes: Buffer.from("abc"),
    error: "illegal base64 data at input byte 4",
  });
  assert.deepEqual(goBase64Decode("YWI=YWJj"), {
    bytes: Buffer.from("ab"),
    error: "illegal base64 data at input byte 4",
  });
  assert.deepEqual(goBase64Decode("YQ=x"), {
    bytes: Buffer.from(""),
    error: "illegal base64 data at input byte 2",
  });
});
