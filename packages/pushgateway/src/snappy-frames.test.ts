import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeSnappyFrames, maskedCrc32c } from "./snappy-frames.js";

const IDENTIFIER = Buffer.from([0xff, 6, 0, 0, ...Buffer.from("sNaPpY")]);
const chunk = (type: number, data: Buffer, crcOf: Buffer) => {
  const crc = Buffer.alloc(4);
  crc.writeUInt32LE(maskedCrc32c(crcOf));
  const payload = Buffer.concat([crc, data]);
  return Buffer.concat([
    Buffer.from([type, payload.length & 0xff, (payload.length >> 8) & 0xff, 0]),
    payload,
  ]);
};

test("CRC-32C matches the standard check value", () => {
  // crc32c("123456789") = 0xe3069283; masked as the framing format specifies.
  const c = 0xe3069283;
  assert.equal(maskedCrc32c(Buffer.from("123456789")), (((c >>> 15) | (c << 17)) + 0xa282ead8) >>> 0);
});

test("decodes uncompressed and compressed chunks (literal plus an overlapping copy)", () => {
  const text = Buffer.from("m 1\nm 1\nm 1\n");
  // Block: length 12, literal "m 1\n" (tag (4-1)<<2), then copy-1 of 8 bytes at offset 4 (tag 1 | (8-4)<<2).
  const block = Buffer.from([12, (4 - 1) << 2, ...Buffer.from("m 1\n"), 1 | ((8 - 4) << 2), 4]);
  const body = Buffer.concat([
    IDENTIFIER,
    chunk(0x00, block, text),
    chunk(0x01, Buffer.from("x 2\n"), Buffer.from("x 2\n")),
  ]);
  assert.equal(decodeSnappyFrames(body).toString(), "m 1\nm 1\nm 1\nx 2\n");
  assert.equal(decodeSnappyFrames(Buffer.alloc(0)).length, 0);
});

test("errors carry golang/snappy's texts", () => {
  const good = Buffer.from("a 1\n");
  assert.throws(
    () => decodeSnappyFrames(Buffer.concat([IDENTIFIER, chunk(0x01, good, Buffer.from("b 1\n"))])),
    {
      message: "snappy: corrupt input",
    },
  );
  assert.throws(() => decodeSnappyFrames(chunk(0x01, good, good)), { message: "snappy: corrupt input" });
  assert.throws(() => decodeSnappyFrames(Buffer.from("a 1\n")), { message: "snappy: corrupt input" });
  assert.throws(() => decodeSnappyFrames(Buffer.concat([IDENTIFIER, chunk(0x02, good, good)])), {
    message: "snappy: unsupported input",
  });
});
