import assert from "node:assert/strict";
import { test } from "node:test";
import { shortHash } from "./short-hash.js";

// FIPS 180-2 appendix B's SHA-256 examples, cut to the 16 hex digits the ids and versions use.
test("shortHash is the first 16 hex digits of SHA-256, for strings and buffers", () => {
  assert.equal(shortHash("abc"), "ba7816bf8f01cfea");
  assert.equal(shortHash(Buffer.from("abc")), "ba7816bf8f01cfea");
  assert.equal(shortHash("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"), "248d6a61d20638b8");
  assert.equal(shortHash(""), "e3b0c44298fc1c14");
});
