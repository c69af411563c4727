import { formatGoFloat } from "../../exposition/go-float.js";

/**
 * The common series read without a string per label: ASCII labels with nothing to escape, in order, and one value.
 * Its line and key are assembled as bytes and made strings once each (a third of the restore's time at 1e6 series
 * went to the strings and arrays of the general way, and to collecting them).
 */
export class PlainSeries {
  line = "";
  key = "";
  readonly #buf: Buffer;
  readonly #name: Buffer;
  #out = Buffer.allocUnsafe(1024);
  #keyOut = Buffer.allocUnsafe(1024);
  /** Per label: name start, name end, value start, value end. */
  readonly #at: number[] = [];
  /** The read position. */
  #p = 0;

  constructor(buf: Buffer, name: Buffer) {
    this.#buf = buf;
    this.#name = name;
  }

  /** Reads the Metric message at [start, end); false when it is not plain (the caller takes the general way). */
  read(start: number, options: { end: number; field: number }): boolean {
    const buf = this.#buf;
    const at = this.#at;
    const { end } = options;
    at.length = 0;
    let value = 0;
    this.#p = start;
    while (this.#p < end) {
      const key = this.#varint();
      if (key < 0 || key % 8 !== 2) return false;
      const length = this.#varint();
      if (length < 0 || this.#p + length > end) return false;
      const number = key >>> 3;
      if (number === 1) {
        // LabelPair: name (field 1), then value (field 2), nothing else.
        const pairEnd = this.#p + length;
        if (buf[this.#p++] !== 0x0a) return false;
        const kLength = this.#varint();
        const k = this.#p;
        const kEnd = k + kLength;
        if (kLength <= 0 || kEnd > pairEnd || !plainName(buf, k, kEnd)) return false;
        this.#p = kEnd;
        let v = kEnd;
        let vEnd = kEnd;
        if (this.#p < pairEnd) {
          if (buf[this.#p++] !== 0x12) return false;
          const vLength = this.#varint();
          v = this.#p;
          vEnd = v + vLength;
          if (vLength < 0 || vEnd > pairEnd || !plainValue(buf, v, vEnd)) return false;
          this.#p = vEnd;
        }
        if (this.#p !== pairEnd) return false;
        const n = at.length;
        if (n > 0 && !before(buf, { a: at[n - 4] as number, aEnd: at[n - 3] as number, b: k, bEnd: kEnd }))
          return false;
        at.push(k, kEnd, v, vEnd);
      } else if (number === options.field) {
        if (length === 9 && buf[this.#p] === 0x09) value = buf.readDoubleLE(this.#p + 1);
        else if (length !== 0) return false;
        this.#p += length;
      } else if (number === 2 || number === 3 || number === 5) this.#p += length;
      else return false;
    }
    if (this.#p !== end) return false;
    this.#assemble(value);
    return true;
  }

  /** A varint of at most five bytes at the read position; -1 when longer or cut. */
  #varint(): number {
    const buf = this.#buf;
    let v = 0;
    let scale = 1;
    for (let i = 0; i < 5; i++) {
      const b = buf[this.#p++] ?? 0x80;
      v += (b & 0x7f) * scale;
      if (b < 0x80) return v;
      scale *= 128;
    }
    return -1;
  }

  #assemble(value: number): void {
    const at = this.#at;
    const labels = at.length / 4;
    const text = formatGoFloat(value);
    let size = this.#name.length + 3 + text.length;
    for (let i = 0; i < at.length; i += 4)
      size += (at[i + 1] as number) - (at[i] as number) + (at[i + 3] as number) - (at[i + 2] as number) + 4;
    if (this.#out.length < size) this.#out = Buffer.allocUnsafe(size * 2);
    if (this.#keyOut.length < size + 8) this.#keyOut = Buffer.allocUnsafe(size * 2 + 8);
    const out = this.#out;
    const src = this.#buf;
    let n = copy(this.#name, { from: 0, to: this.#name.length, out, at: 0 });
    for (let i = 0; i < at.length; i += 4) {
      out[n++] = i === 0 ? 0x7b : 0x2c; // { or ,
      n = copy(src, { from: at[i] as number, to: at[i + 1] as number, out, at: n });
      out[n++] = 0x3d; // =
      out[n++] = 0x22; // "
      n = copy(src, { from: at[i + 2] as number, to: at[i + 3] as number, out, at: n });
      out[n++] = 0x22;
    }
    if (labels > 0) out[n++] = 0x7d; // }
    out[n++] = 0x20;
    n += out.write(text, n, "latin1");
    this.line = out.toString("latin1", 0, n);
    // seriesKey (rendered-family.ts): the count in four digits, then NUL and each value, then NUL and each name.
    const keyOut = this.#keyOut;
    let m = keyOut.write(String(labels).padStart(4, "0"), 0, "latin1");
    for (let i = 2; i < at.length; i += 4) {
      keyOut[m++] = 0;
      m = copy(src, { from: at[i] as number, to: at[i + 1] as number, out: keyOut, at: m });
    }
    for (let i = 0; i < at.length; i += 4) {
      keyOut[m++] = 0;
      m = copy(src, { from: at[i] as number, to: at[i + 1] as number, out: keyOut, at: m });
    }
    this.key = keyOut.toString("latin1", 0, m);
  }
}

/** A classic label name in ASCII bytes: `[a-zA-Z_][a-zA-Z0-9_]*`. */
function plainName(buf: Buffer, start: number, end: number): boolean {
  if (end > buf.length) return false;
  for (let i = start; i < end; i++) {
    const c = buf[i] as number;
    const letter = (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f;
    if (!letter && !(i > start && c >= 0x30 && c <= 0x39)) return false;
  }
  return true;
}

/** A label value in ASCII with nothing the exposition escapes (`\`, `"`, newline). */
function plainValue(buf: Buffer, start: number, end: number): boolean {
  if (end > buf.length) return false;
  for (let i = start; i < end; i++) {
    const c = buf[i] as number;
    if (c >= 0x80 || c === 0x5c || c === 0x22 || c === 0x0a) return false;
  }
  return true;
}

/** Whether bytes [a, aEnd) sort strictly before [b, bEnd). */
function before(buf: Buffer, r: { a: number; aEnd: number; b: number; bEnd: number }): boolean {
  const n = Math.min(r.aEnd - r.a, r.bEnd - r.b);
  for (let i = 0; i < n; i++) {
    const x = buf[r.a + i] as number;
    const y = buf[r.b + i] as number;
    if (x !== y) return x < y;
  }
  return r.aEnd - r.a < r.bEnd - r.b;
}

/** Copies bytes [from, to) of `src` to `out` at `at` by hand (Buffer#copy costs more for a few bytes); the new end. */
function copy(src: Buffer, r: { from: number; to: number; out: Buffer; at: number }): number {
  let n = r.at;
  for (let i = r.from; i < r.to; i++) r.out[n++] = src[i] as number;
  return n;
}
