// A protobuf push with a native histogram (schema 3: 1 negative, 1 zero and 6 positive observations) and exemplars,
// as client_golang sends one; shared by native-histograms.test.ts and its peers test with Prometheus.
import { metricFamilyType as family } from "./metric-family-type.js";

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
