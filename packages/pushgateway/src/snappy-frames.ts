import { ParseError } from "./errors.js";

/**
 * Decodes a body sent with `Content-Encoding: snappy`: the snappy framing format, as upstream reads it with
 * golang/snappy's `NewReader` (prometheus/pushgateway main.go `decodeRequest`, since 1.6.0 #518). Checksums are
 * verified; errors carry golang/snappy's texts (`snappy: corrupt input`, `snappy: unsupported input`).
 *
 * @throws {ParseError}
 */
export function decodeSnappyFrames(body: Uint8Array, options: { maxBytes?: number } = {}): Buffer {
  const out: Buffer[] = [];
  let total = 0;
  let pos = 0;
  let seenIdentifier = false;
  while (pos < body.length) {
    if (pos + 4 > body.length) throw corrupt();
    const type = body[pos] ?? 0;
    const length = (body[pos + 1] ?? 0) | ((body[pos + 2] ?? 0) << 8) | ((body[pos + 3] ?? 0) << 16);
    pos += 4;
    if (pos + length > body.length) throw corrupt();
    const chunk = body.subarray(pos, pos + length);
    pos += length;
    if (type === 0xff) {
      if (length !== 6 || Buffer.from(chunk).toString("latin1") !== "sNaPpY") throw corrupt();
      seenIdentifier = true;
      continue;
    }
    // The stream must start with its identifier (golang/snappy decode.go Reader.Read).
    if (!seenIdentifier) throw corrupt();
    if (type === 0x00 || type === 0x01) {
      if (length < 4) throw corrupt();
      const expected = Buffer.from(chunk).readUInt32LE(0);
      const data = type === 0x00 ? decodeBlock(chunk.subarray(4)) : Buffer.from(chunk.subarray(4));
      if (maskedCrc32c(data) !== expected) throw corrupt();
      total += data.length;
      if (options.maxBytes !== undefined && options.maxBytes > 0 && total > options.maxBytes) {
        throw new RangeError("snappy body over the limit");
      }
      out.push(data);
      continue;
    }
    // 0x02–0x7f are reserved unskippable chunks; 0x80–0xfe are skippable (padding among them).
    if (type < 0x80) throw new ParseError("snappy: unsupported input");
  }
  return Buffer.concat(out);
}

function corrupt(): ParseError {
  return new ParseError("snappy: corrupt input");
}

/** One snappy block: varint length, then literals and back-references. */
function decodeBlock(block: Uint8Array): Buffer {
  let pos = 0;
  let length = 0;
  for (let shift = 0; ; shift += 7) {
    if (pos >= block.length || shift > 28) throw corrupt();
    const b = block[pos++] ?? 0;
    length += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) break;
  }
  // A framed chunk holds at most 64 KiB of data (golang/snappy maxBlockSize); larger claims are corrupt, which
  // also bounds the allocation a hostile length could ask for.
  if (length > 65536) throw corrupt();
  const out = Buffer.alloc(length);
  let o = 0;
  while (pos < block.length) {
    const tag = block[pos++] ?? 0;
    if ((tag & 3) === 0) {
      let n = tag >> 2;
      if (n >= 60) {
        const bytes = n - 59;
        if (pos + bytes > block.length) throw corrupt();
        n = 0;
        for (let i = 0; i < bytes; i++) n += (block[pos + i] ?? 0) * 2 ** (8 * i);
        pos += bytes;
      }
      n += 1;
      if (pos + n > block.length || o + n > length) throw corrupt();
      out.set(block.subarray(pos, pos + n), o);
      pos += n;
      o += n;
      continue;
    }
    let n: number;
    let offset: number;
    if ((tag & 3) === 1) {
      if (pos + 1 > block.length) throw corrupt();
      n = 4 + ((tag >> 2) & 7);
      offset = ((tag >> 5) << 8) | (block[pos] ?? 0);
      pos += 1;
    } else if ((tag & 3) === 2) {
      if (pos + 2 > block.length) throw corrupt();
      n = (tag >> 2) + 1;
      offset = (block[pos] ?? 0) | ((block[pos + 1] ?? 0) << 8);
      pos += 2;
    } else {
      if (pos + 4 > block.length) throw corrupt();
      n = (tag >> 2) + 1;
      offset = Buffer.from(block.subarray(pos, pos + 4)).readUInt32LE(0);
      pos += 4;
    }
    if (offset === 0 || offset > o || o + n > length) throw corrupt();
    // Byte by byte: a copy may overlap its own output (run-length style).
    for (let i = 0; i < n; i++, o++) out[o] = out[o - offset] ?? 0;
  }
  if (o !== length) throw corrupt();
  return out;
}

const CRC32C_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    table[i] = c >>> 0;
  }
  return table;
})();

/** CRC-32C (Castagnoli) of the data, masked as the framing format stores it. */
export function maskedCrc32c(data: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of data) c = (CRC32C_TABLE[(c ^ b) & 0xff] ?? 0) ^ (c >>> 8);
  c = (c ^ 0xffffffff) >>> 0;
  return (((c >>> 15) | (c << 17)) + 0xa282ead8) >>> 0;
}
