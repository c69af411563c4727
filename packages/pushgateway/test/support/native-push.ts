// A protobuf push with a native histogram (schema 3: 1 negative, 1 zero and 6 positive observations) and exemplars,
// as client_golang sends one, and the protobuf scrape that checks it came back whole; shared by
// native-histograms.test.ts, its peers test with Prometheus and the Redis replicas' test.
import assert from "node:assert/strict";
import { metricFamilyType as family } from "./metric-family-type.js";
import { DELIMITED, splitDelimited } from "./scrape-fixtures.js";

export const HISTOGRAM = {
  sampleCount: 8,
  sampleSum: 12.5,
  bucket: [
    {
      cumulativeCount: 2,
      upperBound: 1,
      exemplar: { label: [{ name: "trace_id", value: "abc123" }], value: 0.7 },
    },
    { cumulativeCount: 5, upperBound: 5 },
  ],
  schema: 3,
  zeroThreshold: 1e-128,
  zeroCount: 1,
  negativeSpan: [{ offset: -2, length: 1 }],
  negativeDelta: [1],
  positiveSpan: [
    { offset: 0, length: 2 },
    { offset: 3, length: 1 },
  ],
  positiveDelta: [2, -1, 2],
};
export const COUNTER = {
  value: 42,
  exemplar: {
    label: [{ name: "trace_id", value: "t-9" }],
    value: 1,
    timestamp: { seconds: 1700000000, nanos: 5 },
  },
};

export function nativePushBody(): Buffer {
  const bytes = (o: Record<string, unknown>) => family.encodeDelimited(family.fromObject(o)).finish();
  return Buffer.concat([
    bytes({
      name: "rpc_seconds",
      help: "RPC latency.",
      type: "HISTOGRAM",
      metric: [{ histogram: HISTOGRAM }],
    }),
    bytes({ name: "requests_total", help: "Requests.", type: "COUNTER", metric: [{ counter: COUNTER }] }),
  ]);
}

/** The first series of every family of a protobuf scrape of `base`, by family name. */
export async function scrapeProtobuf(base: string): Promise<Record<string, Record<string, unknown>>> {
  const body = Buffer.from(
    await (await fetch(`${base}/metrics`, { headers: { Accept: DELIMITED } })).arrayBuffer(),
  );
  const out: Record<string, Record<string, unknown>> = {};
  for (const m of splitDelimited(body)) {
    const f = family.toObject(family.decode(m), { longs: Number, enums: String, defaults: false }) as {
      name: string;
      metric: Record<string, unknown>[];
    };
    if (f.metric[0] !== undefined) out[f.name] = f.metric[0];
  }
  return out;
}

/** `nativePushBody()` pushed to group `job="native"` as a protobuf scrape shows it: native buckets, exemplars. */
export function assertRoundTrip(scraped: Record<string, Record<string, unknown>>): void {
  assert.deepEqual(scraped.rpc_seconds?.histogram, HISTOGRAM);
  assert.deepEqual(scraped.requests_total?.counter, COUNTER);
  assert.deepEqual(scraped.rpc_seconds?.label, [
    { name: "instance", value: "" },
    { name: "job", value: "native" },
  ]);
}
