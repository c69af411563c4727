// Pushes upstream refuses and ours once stored altered: label values that are not UTF-8, a label name twice in one
// protobuf series. Shared by the test of ours alone and the one beside Debian's 1.5.1.

/** A delimited protobuf `MetricFamily` "pm" (untyped 1) with one series whose label `a` has the value `value`. */
export function protobufWithLabelValue(value: Uint8Array): Buffer {
  return protobufWithLabels([["a", value]]);
}

/** A delimited protobuf `MetricFamily` "pm" (untyped 1) with one series of these label pairs, in this order. */
export function protobufWithLabels(pairs: readonly [string, Uint8Array][]): Buffer {
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
  const labels = pairs.map(([k, v]) => field(1, Buffer.concat([field(1, Buffer.from(k)), field(2, v)])));
  const untyped = Buffer.concat([Buffer.from([0x09]), double]);
  const metric = Buffer.concat([...labels, field(5, untyped)]);
  const family = Buffer.concat([field(1, Buffer.from("pm")), Buffer.from([0x18, 3]), field(4, metric)]);
  return Buffer.concat([varint(family.length), family]);
}

export const PROTOBUF_TYPE =
  "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited";
