/** A protobuf message written field by field into one growing buffer. */
export class ProtoWriter {
  #buf = Buffer.allocUnsafe(256);
  #at = 0;

  reset(): void {
    this.#at = 0;
  }

  string(field: number, text: string): void {
    const length = Buffer.byteLength(text);
    this.#key(field, 2);
    this.#varint(length);
    this.#room(length);
    this.#at += this.#buf.write(text, this.#at, "utf8");
  }

  bytes(field: number, data: Uint8Array): void {
    this.#key(field, 2);
    this.#varint(data.length);
    this.#room(data.length);
    this.#buf.set(data, this.#at);
    this.#at += data.length;
  }

  /** The key and length of a length-delimited field whose `length` bytes the caller writes next. */
  header(field: number, length: number): void {
    this.#key(field, 2);
    this.#varint(length);
  }

  varintField(field: number, value: number): void {
    this.#key(field, 0);
    this.#varint(value);
  }

  double(field: number, value: number): void {
    this.#key(field, 1);
    this.#room(8);
    this.#buf.writeDoubleLE(value, this.#at);
    this.#at += 8;
  }

  /** The message so far, copied (the writer is reused). */
  finish(): Buffer {
    return Buffer.from(this.#buf.subarray(0, this.#at));
  }

  #key(field: number, wire: number): void {
    this.#varint(field * 8 + wire);
  }

  #varint(value: number): void {
    this.#room(10);
    let v = value;
    while (v >= 0x80) {
      this.#buf[this.#at++] = (v % 128) | 0x80;
      v = Math.floor(v / 128);
    }
    this.#buf[this.#at++] = v;
  }

  #room(n: number): void {
    if (this.#at + n <= this.#buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.#buf.length * 2, this.#at + n));
    this.#buf.copy(bigger, 0, 0, this.#at);
    this.#buf = bigger;
  }
}
