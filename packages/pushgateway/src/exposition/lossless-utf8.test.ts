import assert from "node:assert/strict";
import { isUtf8 } from "node:buffer";
import { test } from "node:test";
import { xorshift32 } from "../../test/support/xorshift.js";
import { decodeUtf8Lossless, goQuoteLossless, hasInvalidUtf8, losslessBytes } from "./lossless-utf8.js";

test("any bytes round-trip, and only bytes that are not UTF-8 show as invalid", () => {
  const random = xorshift32(42);
  // Bytes biased towards UTF-8's lead and continuation bytes, so both valid and broken sequences come up.
  const pool = [
    0x41, 0x7f, 0x80, 0xbf, 0xc2, 0xc3, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff, 0xa0, 0x9f,
  ];
  for (let n = 0; n < 5000; n++) {
    const bytes = Uint8Array.from({ length: 1 + Math.floor(random() * 8) }, () =>
      random() < 0.5 ? (pool[Math.floor(random() * pool.length)] ?? 0) : Math.floor(random() * 256),
    );
    const text = decodeUtf8Lossless(bytes);
    assert.deepEqual(
      Buffer.from(losslessBytes(text)),
      Buffer.from(bytes),
      `bytes ${Buffer.from(bytes).toString("hex")}`,
    );
    assert.equal(hasInvalidUtf8(text), !isUtf8(bytes), `bytes ${Buffer.from(bytes).toString("hex")}`);
    if (isUtf8(bytes)) assert.equal(text, Buffer.from(bytes).toString("utf8"));
  }
});

test("Go's %q of the original bytes", () => {
  assert.equal(goQuoteLossless(decodeUtf8Lossless(Uint8Array.from([0x6a, 0xff]))), '"j\\xff"');
  assert.equal(goQuoteLossless(decodeUtf8Lossless(Buffer.from("Π\n"))), '"Π\\n"');
  assert.equal(goQuoteLossless("𝄞"), '"𝄞"');
});
