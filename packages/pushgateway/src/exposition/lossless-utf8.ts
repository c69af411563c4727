import { isUtf8 } from "node:buffer";
import { goQuote } from "@local/go-compat/quote";

// Go strings are bytes: a label value pushed as invalid UTF-8 reaches upstream's checks as it was sent, and they
// refuse it quoting the bytes (`invalid label value "\xff"`). JavaScript strings cannot hold such bytes, and the
// usual decoding turns them into U+FFFD, which would store the value altered. Decoded here instead as Python's
// "surrogateescape" does (PEP 383): each byte of an invalid sequence becomes the lone surrogate U+DC80..U+DCFF,
// which no valid UTF-8 decodes to, so the checks can find it and the messages can quote the original bytes.

const FIRST_ESCAPE = 0xdc80;
const LAST_ESCAPE = 0xdcff;

/** The bytes as text: valid UTF-8 decoded, each byte of an invalid sequence kept as an escape (see above). */
export function decodeUtf8Lossless(bytes: Uint8Array): string {
  if (isUtf8(bytes)) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  let out = "";
  let start = 0;
  let i = 0;
  const flush = (end: number) => {
    if (end > start) out += Buffer.from(bytes.subarray(start, end)).toString("utf8");
  };
  while (i < bytes.length) {
    const width = sequenceWidth(bytes, i);
    if (width > 0) {
      i += width;
      continue;
    }
    flush(i);
    out += String.fromCharCode(FIRST_ESCAPE - 0x80 + (bytes[i] ?? 0));
    i += 1;
    start = i;
  }
  flush(i);
  return out;
}

/** Whether `text` holds bytes that were not valid UTF-8 (escapes made by {@link decodeUtf8Lossless}). */
export function hasInvalidUtf8(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= FIRST_ESCAPE && c <= LAST_ESCAPE && !isLowSurrogateOfPair(text, i)) return true;
  }
  return false;
}

/** The bytes `text` was decoded from by {@link decodeUtf8Lossless}. */
export function losslessBytes(text: string): Uint8Array {
  if (!hasInvalidUtf8(text)) return Buffer.from(text, "utf8");
  const parts: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < FIRST_ESCAPE || c > LAST_ESCAPE || isLowSurrogateOfPair(text, i)) continue;
    parts.push(Buffer.from(text.slice(start, i), "utf8"), Buffer.from([c - FIRST_ESCAPE + 0x80]));
    start = i + 1;
  }
  parts.push(Buffer.from(text.slice(start), "utf8"));
  return Buffer.concat(parts);
}

/** Go's `%q` of the bytes `text` stands for: an invalid byte as `\xff`, as Go quotes a string holding it. */
export function goQuoteLossless(text: string): string {
  return goQuote(losslessBytes(text));
}

function isLowSurrogateOfPair(text: string, i: number): boolean {
  const before = text.charCodeAt(i - 1);
  return i > 0 && before >= 0xd800 && before <= 0xdbff;
}

/** The length of the valid UTF-8 sequence starting at `i`, or 0 when none starts there. */
function sequenceWidth(bytes: Uint8Array, i: number): number {
  const b0 = bytes[i] ?? 0;
  if (b0 < 0x80) return 1;
  const width =
    b0 >= 0xc2 && b0 <= 0xdf ? 2 : b0 >= 0xe0 && b0 <= 0xef ? 3 : b0 >= 0xf0 && b0 <= 0xf4 ? 4 : 0;
  if (width === 0 || i + width > bytes.length) return 0;
  for (let k = 1; k < width; k++) if (((bytes[i + k] ?? 0) & 0xc0) !== 0x80) return 0;
  const b1 = bytes[i + 1] ?? 0;
  // Overlong forms, surrogates and code points above U+10FFFF (RFC 3629 table).
  if (b0 === 0xe0 && b1 < 0xa0) return 0;
  if (b0 === 0xed && b1 > 0x9f) return 0;
  if (b0 === 0xf0 && b1 < 0x90) return 0;
  if (b0 === 0xf4 && b1 > 0x8f) return 0;
  return width;
}
