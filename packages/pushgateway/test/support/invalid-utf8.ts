// Pushes carrying bytes that are not UTF-8 where upstream requires UTF-8 (label values), shared by the test of ours
// alone and the one beside Debian's 1.5.1.

/** A delimited protobuf `MetricFamily` "pm" (untyped 1) with one series whose label `a` has the value `value`. */
export function protobufWithLabelValue(value: Uint8Array): Buffer {
  const varint = (n: number) => {
    const out: number[] = [];
    while (n > 0x7f) {
      out.push((n & 0x7f) | 0x80);
      n >>>= 7;
    }
    out.push(n);
    return Buffer.from(out);
  };
  const field = (num: number, payload: Uint8Array) =>
    Buffer.concat([varint((num << 3) | 2), varint(payload.length), payload]);
  const double = Buffer.alloc(8);
  double.writeDoubleLE(1);
  const pair = Buffer.concat([field(1, Buffer.from("a")), field(2, value)]);
  const untyped = Buffer.concat([Buffer.from([0x09]), double]);
  const metric = Buffer.concat([field(1, pair), field(5, untyped)]);
  const family = Buffer.concat([field(1, Buffer.from("pm")), Buffer.from([0x18, 3]), field(4, metric)]);
  return Buffer.concat([varint(family.length), family]);
}

export const PROTOBUF_TYPE =
  "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited";
