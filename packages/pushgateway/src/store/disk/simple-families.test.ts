import assert from "node:assert/strict";
import { test } from "node:test";
import { xorshift32 } from "../../../test/support/xorshift.js";
import type { MetricFamily } from "../../exposition/metric-family.js";
import { decodeDelimitedProtobuf } from "../../exposition/parse-protobuf.js";
import { parseText } from "../../exposition/parse-text.js";
import { loadCodec } from "../../exposition/protobuf-codec.js";
import { parseRenderedFamily, renderFamily } from "../../exposition/rendered-family.js";
import { writeDelimitedProtobuf } from "../../exposition/write-protobuf.js";
import { decodeSimpleFamily, encodeSimpleFamily } from "./simple-families.js";

const codec = await loadCodec();
const VALUES = [
  0,
  -0,
  1,
  -1.5,
  1e21,
  5e-324,
  1.7976931348623157e308,
  Number.NaN,
  Infinity,
  -Infinity,
  0.1,
  123456.7,
];
const TEXTS = ["", "a", 'quote " and \\ back', "new\nline", "Προμηθεύς 𝄞", "x".repeat(300)];

function randomFamily(random: () => number, type: "gauge" | "counter" | "untyped"): MetricFamily {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)] as T;
  const names = ["aa", "b_c", "instance", "job", "le", "zz"].filter(() => random() < 0.6);
  return {
    name: `fam_${Math.floor(random() * 100)}`,
    // An empty help is a help sent empty (a protobuf push), kept apart from none by both paths.
    help: random() < 0.5 ? undefined : pick(TEXTS),
    type,
    metrics: Array.from({ length: 1 + Math.floor(random() * 5) }, (_, i) => ({
      labels: [...names.map((k) => [k, pick(TEXTS)] as [string, string]), ["zzz_series", String(i)]] as [
        string,
        string,
      ][],
      value: pick(VALUES),
    })),
  };
}

test("lines to protobuf and back agree with the general path on random families", async () => {
  const random = xorshift32(7);
  for (let n = 0; n < 300; n++) {
    const family = randomFamily(random, (["gauge", "counter", "untyped"] as const)[n % 3] ?? "gauge");
    const stored = renderFamily(family);
    const proto = encodeSimpleFamily(stored);
    assert.ok(proto, "a simple family is encoded");
    // The general writer's path (the lines parsed back, then protobufjs) and the direct one read back alike.
    const [viaGeneral] = decodeDelimitedProtobuf(
      await writeDelimitedProtobuf([parseRenderedFamily(stored)]),
      {
        utf8: true,
        codec,
      },
    );
    const framed = Buffer.concat([encodeVarint(proto.length), proto]);
    const [viaFast] = decodeDelimitedProtobuf(framed, { utf8: true, codec });
    assert.deepEqual(viaFast, viaGeneral);
    // And the bytes read straight into the stored form are what rendering the general result gives.
    const back = decodeSimpleFamily(proto);
    assert.deepEqual(back, renderFamily(viaGeneral as MetricFamily));
  }
});

test("anything else is left to the general path", async () => {
  const summary = parseText('# TYPE s summary\ns{quantile="0.5"} 1\ns_sum 1\ns_count 1\n')[0] as MetricFamily;
  assert.equal(encodeSimpleFamily(renderFamily(summary)), undefined);
  const [withTimestamp] = decodeDelimitedProtobuf(await writeDelimitedProtobuf(parseText("m 1 1000\n")), {
    codec,
  });
  const bytes = await writeDelimitedProtobuf([withTimestamp as MetricFamily]);
  assert.equal(decodeSimpleFamily(bytes.subarray(1)), undefined);
  const utf8 = renderFamily({
    name: "a.b",
    help: undefined,
    type: "gauge",
    metrics: [{ labels: [], value: 1 }],
  });
  assert.equal(encodeSimpleFamily(utf8), undefined);
});

function encodeVarint(n: number): Buffer {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return Buffer.from(out);
}
