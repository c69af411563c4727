/**
 * Go's encoding/gob (https://pkg.go.dev/encoding/gob), as far as upstream's persistence file needs it
 * (storage/diskmetricstore.go `persist`/`restore`): a stream of messages, each a byte count and then either a type
 * definition (negative type id and a `wireType`) or a value (type id and the value). Values of maps, structs, slices,
 * strings, integers, floats, booleans and GobEncoder types (opaque bytes) are decoded from the definitions in the
 * stream, so the descriptors that differ between Go and protobuf versions (1.5.1 describes the protobuf structs
 * behind its GobEncoder type, later versions other fields) are read, not assumed. No npm library reads gob.
 */

/** A decoded gob value: a struct by field name, a map, a list, bytes of a GobEncoder, or a scalar. */
export type GobValue =
  | { readonly kind: "struct"; readonly fields: ReadonlyMap<string, GobValue> }
  | { readonly kind: "map"; readonly entries: readonly (readonly [GobValue, GobValue])[] }
  | { readonly kind: "slice"; readonly items: readonly GobValue[] }
  | { readonly kind: "bytes"; readonly value: Buffer }
  | { readonly kind: "string"; readonly value: string }
  | { readonly kind: "int"; readonly value: bigint }
  | { readonly kind: "uint"; readonly value: bigint }
  | { readonly kind: "float"; readonly value: number }
  | { readonly kind: "bool"; readonly value: boolean };

/** Go's predefined type ids (encoding/gob type.go), for the decoder here and the definitions a writer refers to. */
export const GOB_TYPE_ID = { BOOL: 1, INT: 2, UINT: 3, FLOAT: 4, BYTES: 5, STRING: 6 } as const;
const { BOOL, INT, UINT, FLOAT, BYTES, STRING } = GOB_TYPE_ID;

/** A type definition of the stream (encoding/gob `wireType`), by kind. */
export type WireType =
  | { kind: "struct"; fields: { name: string; id: number }[] }
  | { kind: "map"; key: number; elem: number }
  | { kind: "slice"; elem: number }
  | { kind: "array"; elem: number; len: number }
  | { kind: "encoder" };

/** A gob stream that does not parse: what is wrong, and where. */
export class GobError extends Error {}

class Reader {
  at = 0;
  readonly buf: Buffer;

  constructor(buf: Buffer) {
    this.buf = buf;
  }

  uint(): bigint {
    const b = this.byte();
    if (b < 0x80) return BigInt(b);
    const n = 256 - b;
    if (n > 8) throw new GobError(`bad unsigned integer at byte ${this.at - 1}`);
    let v = 0n;
    for (let i = 0; i < n; i++) v = (v << 8n) | BigInt(this.byte());
    return v;
  }

  int(): bigint {
    const u = this.uint();
    return u & 1n ? ~(u >> 1n) : u >> 1n;
  }

  small(): number {
    const v = this.uint();
    if (v > BigInt(this.buf.length))
      throw new GobError(`count ${v} past the end of the data at byte ${this.at}`);
    return Number(v);
  }

  byte(): number {
    const b = this.buf[this.at];
    if (b === undefined) throw new GobError("unexpected EOF");
    this.at++;
    return b;
  }

  bytes(n: number): Buffer {
    if (this.at + n > this.buf.length) throw new GobError("unexpected EOF");
    const out = this.buf.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }

  float(): number {
    // A float is its IEEE bits byte-reversed, sent as an unsigned integer.
    const u = this.uint();
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(u);
    return b.readDoubleBE();
  }
}

/**
 * Decodes every value of a gob stream, reading the type definitions it carries.
 *
 * @throws {GobError} when the stream is not gob or uses what upstream's file never holds (interfaces, complex)
 */
export function decodeGob(
  data: Buffer,
  options: { checkType?: (id: number, types: ReadonlyMap<number, WireType>) => void } = {},
): GobValue[] {
  const types = new Map<number, WireType>();
  const values: GobValue[] = [];
  const r = new Reader(data);
  while (r.at < data.length) {
    const length = r.small();
    const end = r.at + length;
    if (end > data.length) throw new GobError("unexpected EOF");
    const id = Number(r.int());
    if (id < 0) {
      types.set(-id, readWireType(r));
    } else {
      // The expected shape is checked before a value is read: a wrong type costs nothing, whatever its size.
      options.checkType?.(id, types);
      const t = types.get(id);
      if (t?.kind === "struct") values.push(readValue(r, id, types));
      else {
        // A top-level value that is not a struct comes as a singleton: a zero field delta, then the value.
        if (r.uint() !== 0n) throw new GobError("singleton value without its zero delta");
        values.push(readValue(r, id, types));
      }
    }
    if (r.at !== end) throw new GobError(`message of ${length} bytes read as ${length - (end - r.at)}`);
  }
  return values;
}

function readWireType(r: Reader): WireType {
  // wireType: ArrayT 1, SliceT 2, StructT 3, MapT 4, GobEncoderT 5, BinaryMarshalerT 6, TextMarshalerT 7.
  let field = 0;
  let out: WireType | undefined;
  for (;;) {
    const delta = Number(r.uint());
    if (delta === 0) break;
    field += delta;
    // Only a structType (StructT, field 3) has a list as its field 2.
    const fields = readPlainStruct(r, { fieldList: field === 3 });
    switch (field) {
      case 1:
        out = { kind: "array", elem: num(fields.get(2)), len: num(fields.get(3)) };
        break;
      case 2:
        out = { kind: "slice", elem: num(fields.get(2)) };
        break;
      case 3: {
        const list = (fields.get(2) as { name: string; id: number }[] | undefined) ?? [];
        out = { kind: "struct", fields: list };
        break;
      }
      case 4:
        out = { kind: "map", key: num(fields.get(2)), elem: num(fields.get(3)) };
        break;
      case 5:
      case 6:
      case 7:
        out = { kind: "encoder" };
        break;
      default:
        throw new GobError(`unknown wire type field ${field}`);
    }
  }
  if (out === undefined) throw new GobError("empty type definition");
  return out;
}

/**
 * The structs of a wireType (arrayType, sliceType, structType, mapType, gobEncoderType), by field number: field 1 is
 * the embedded CommonType (skipped), a structType's field 2 is its list of fieldType {Name, Id}.
 */
function readPlainStruct(r: Reader, options: { fieldList: boolean }): Map<number, unknown> {
  const out = new Map<number, unknown>();
  let field = 0;
  for (;;) {
    const delta = Number(r.uint());
    if (delta === 0) return out;
    field += delta;
    if (field === 1) {
      skipCommonType(r);
    } else if (field === 2 && options.fieldList) {
      const n = r.small();
      const list: { name: string; id: number }[] = [];
      for (let i = 0; i < n; i++) {
        let f = 0;
        let name = "";
        let id = 0;
        for (;;) {
          const d = Number(r.uint());
          if (d === 0) break;
          f += d;
          if (f === 1) name = r.bytes(r.small()).toString("utf8");
          else if (f === 2) id = Number(r.int());
          else throw new GobError("bad fieldType");
        }
        list.push({ name, id });
      }
      out.set(2, list);
    } else out.set(field, Number(r.int()));
  }
}

function skipCommonType(r: Reader): void {
  let f = 0;
  for (;;) {
    const d = Number(r.uint());
    if (d === 0) return;
    f += d;
    if (f === 1) r.bytes(r.small());
    else if (f === 2) r.int();
    else throw new GobError("bad CommonType");
  }
}

function num(v: unknown): number {
  return typeof v === "number" ? v : 0;
}

function readValue(r: Reader, id: number, types: ReadonlyMap<number, WireType>): GobValue {
  switch (id) {
    case BOOL:
      return { kind: "bool", value: r.uint() !== 0n };
    case INT:
      return { kind: "int", value: r.int() };
    case UINT:
      return { kind: "uint", value: r.uint() };
    case FLOAT:
      return { kind: "float", value: r.float() };
    case BYTES:
      return { kind: "bytes", value: r.bytes(r.small()) };
    case STRING:
      return { kind: "string", value: r.bytes(r.small()).toString("utf8") };
  }
  const t = types.get(id);
  if (t === undefined) throw new GobError(`value of undefined type ${id}`);
  switch (t.kind) {
    case "encoder":
      // A view of the data, not a copy: the caller holds the file while it decodes.
      return { kind: "bytes", value: r.bytes(r.small()) };
    case "map": {
      const n = r.small();
      const entries: [GobValue, GobValue][] = [];
      for (let i = 0; i < n; i++) entries.push([readValue(r, t.key, types), readValue(r, t.elem, types)]);
      return { kind: "map", entries };
    }
    case "slice":
    case "array": {
      const n = r.small();
      const items: GobValue[] = [];
      for (let i = 0; i < n; i++) items.push(readValue(r, t.elem, types));
      return { kind: "slice", items };
    }
    case "struct": {
      const fields = new Map<string, GobValue>();
      let f = -1;
      for (;;) {
        const d = Number(r.uint());
        if (d === 0) break;
        f += d;
        const spec = t.fields[f];
        if (spec === undefined) throw new GobError(`field ${f} of a struct with ${t.fields.length}`);
        fields.set(spec.name, readValue(r, spec.id, types));
      }
      return { kind: "struct", fields };
    }
  }
}

/** Builds a gob stream: type definitions first, then values. */
export class GobWriter {
  readonly #parts: Buffer[] = [];

  /** A type definition message for type `id`: a struct, a map, or a GobEncoder type. */
  define(
    id: number,
    type:
      | { struct: readonly [string, number][] }
      | { map: [number, number]; name: string }
      | { encoder: string },
  ): void {
    const body = new Writer();
    body.int(-id);
    if ("struct" in type) {
      body.uint(3); // StructT
      body.uint(1); // CommonType
      body.uint(2).int(id); // Id (Name empty, as Go sends a struct's)
      body.uint(0);
      body.uint(1).uint(type.struct.length); // Field
      for (const [name, fid] of type.struct) body.uint(1).string(name).uint(1).int(fid).uint(0);
      body.uint(0);
    } else if ("map" in type) {
      body.uint(4); // MapT
      body.uint(1).uint(1).string(type.name).uint(1).int(id).uint(0);
      body.uint(1).int(type.map[0]).uint(1).int(type.map[1]).uint(0);
    } else {
      body.uint(5); // GobEncoderT
      body.uint(1).uint(1).string(type.encoder).uint(1).int(id).uint(0).uint(0);
    }
    body.uint(0);
    this.#message(body.finish());
  }

  /** A value message: `write` writes the value (a top-level non-struct value is a singleton, after a zero delta). */
  value(id: number, options: { singleton: boolean }, write: (w: Writer) => void): void {
    const body = new Writer();
    body.int(id);
    if (options.singleton) body.uint(0);
    write(body);
    this.#message(body.finish());
  }

  finish(): Buffer {
    return Buffer.concat(this.#parts);
  }

  #message(body: Buffer): void {
    this.#parts.push(new Writer().uint(body.length).finish(), body);
  }
}

/** The bytes of one gob message body. */
export class Writer {
  readonly #bytes: number[] = [];
  readonly #chunks: Buffer[] = [];

  uint(v: number | bigint): this {
    let n = BigInt(v);
    if (n < 0x80n) {
      this.#bytes.push(Number(n));
      return this;
    }
    const out: number[] = [];
    while (n > 0n) {
      out.unshift(Number(n & 0xffn));
      n >>= 8n;
    }
    this.#bytes.push(256 - out.length, ...out);
    return this;
  }

  int(v: number | bigint): this {
    const n = BigInt(v);
    return this.uint(n < 0n ? (~n << 1n) | 1n : n << 1n);
  }

  string(s: string): this {
    return this.raw(Buffer.from(s, "utf8"));
  }

  /** A byte count and the bytes (a string, a []byte, a GobEncoder's output). */
  raw(b: Buffer): this {
    this.uint(b.length);
    this.#flush();
    this.#chunks.push(b);
    return this;
  }

  finish(): Buffer {
    this.#flush();
    return Buffer.concat(this.#chunks);
  }

  #flush(): void {
    if (this.#bytes.length > 0) this.#chunks.push(Buffer.from(this.#bytes.splice(0)));
  }
}
