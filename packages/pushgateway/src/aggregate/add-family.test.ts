import assert from "node:assert/strict";
import { test } from "node:test";
import type { MetricFamily } from "../exposition/metric-family.js";
import { nativeBuckets } from "../exposition/native-buckets.js";
import { parseText } from "../exposition/parse-text.js";
import { addFamily } from "./add-family.js";

const family = (text: string): MetricFamily => {
  const [f] = parseText(text);
  assert.ok(f);
  return f;
};
const latest = { gauges: "latest" as const };

test("counters add per series; series the push lacks are kept, new ones appended", () => {
  const held = family('# TYPE c counter\nc{a="1"} 2\nc{a="2"} 5\n');
  const pushed = family('# TYPE c counter\nc{a="2"} 1.5\nc{a="3"} 7\n');
  const out = addFamily(held, pushed, latest);
  assert.deepEqual(
    out.metrics.map((m) => [m.labels, m.value]),
    [
      [[["a", "1"]], 2],
      [[["a", "2"]], 6.5],
      [[["a", "3"]], 7],
    ],
  );
  assert.equal(addFamily(undefined, pushed, latest), pushed);
});

test("gauges and untyped take the pushed value, or add with gauges=sum", () => {
  const held = family("# TYPE g gauge\ng 3\n");
  const pushed = family("# TYPE g gauge\ng 4\n");
  assert.equal(addFamily(held, pushed, latest).metrics[0]?.value, 4);
  assert.equal(addFamily(held, pushed, { gauges: "sum" }).metrics[0]?.value, 7);
  assert.equal(addFamily(family("u 1\n"), family("u 2\n"), { gauges: "sum" }).metrics[0]?.value, 3);
});

test("summaries add _count and _sum and keep the pushed quantiles", () => {
  const held = family('# TYPE s summary\ns{quantile="0.5"} 1\ns_sum 10\ns_count 4\n');
  const pushed = family('# TYPE s summary\ns{quantile="0.5"} 3\ns_sum 2.5\ns_count 1\n');
  const [m] = addFamily(held, pushed, latest).metrics;
  assert.deepEqual([m?.quantiles, m?.sum, m?.count], [[[0.5, 3]], 12.5, 5]);
});

test("classic histograms add bucket by bucket; another layout is refused", () => {
  const h = (c1: number, c2: number, sum: number) =>
    family(
      `# TYPE h histogram\nh_bucket{le="1"} ${c1}\nh_bucket{le="+Inf"} ${c2}\nh_sum ${sum}\nh_count ${c2}\n`,
    );
  const [m] = addFamily(h(1, 3, 4), h(2, 2, 1), latest).metrics;
  assert.deepEqual(
    [m?.buckets, m?.sum, m?.count],
    [
      [
        [1, 3],
        [Number.POSITIVE_INFINITY, 5],
      ],
      5,
      5,
    ],
  );
  const other = family('# TYPE h histogram\nh_bucket{le="2"} 1\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n');
  assert.throws(() => addFamily(h(1, 3, 4), other, latest), {
    name: "AggregationError",
    message: "cannot add h{}: bucket layout differs (group holds le=1,+Inf, push has le=2,+Inf)",
  });
});

test("a type differing from the held family is refused", () => {
  assert.throws(() => addFamily(family("# TYPE x counter\nx 1\n"), family("# TYPE x gauge\nx 1\n"), latest), {
    name: "AggregationError",
    message:
      "cannot add x: the group holds it as a counter, the push has it as a gauge; push it to a new group or DELETE the aggregated group first",
  });
});

/** A native histogram as client_golang pushes it (schema 0: buckets (0.5,1], (1,2], (2,4] are indexes 0, 1, 2). */
const native = (
  spans: { offset: number; length: number }[],
  deltas: number[],
  extra: Record<string, unknown> = {},
) => {
  const count = deltas.reduce<[number, number]>(([acc, run], d) => [acc + run + d, run + d], [0, 0])[0];
  return {
    name: "n",
    help: undefined,
    type: "histogram" as const,
    metrics: [
      {
        labels: [] as [string, string][],
        buckets: [[Number.POSITIVE_INFINITY, count]] as [number, number][],
        count,
        sum: 1,
        protoValue: JSON.stringify({
          sampleCount: String(count),
          sampleSum: 1,
          schema: 0,
          zeroThreshold: 1e-128,
          zeroCount: "0",
          positiveSpan: spans,
          positiveDelta: deltas.map(String),
          ...extra,
        }),
      },
    ],
  };
};

test("native histograms add bucket by index across different spans; another schema is refused", () => {
  // held: index 0 → 2, index 1 → 1; pushed: index 1 → 3, index 3 → 1
  const held = native([{ offset: 0, length: 2 }], [2, -1]);
  const pushed = native(
    [
      { offset: 1, length: 1 },
      { offset: 1, length: 1 },
    ],
    [3, -2],
  );
  const [m] = addFamily(held, pushed, latest).metrics;
  assert.equal(m?.count, 7);
  assert.equal(m?.sum, 2);
  const message = JSON.parse(m?.protoValue ?? "{}");
  assert.deepEqual(
    nativeBuckets(message).map((b) => [b.lower, b.upper, b.count]),
    [
      [0.5, 1, 2],
      [1, 2, 4],
      [4, 8, 1],
    ],
  );
  assert.equal(message.sampleCount, "7");
  assert.throws(() => addFamily(held, native([{ offset: 0, length: 1 }], [1], { schema: 3 }), latest), {
    name: "AggregationError",
    message:
      "cannot add n{}: native bucket layout differs (group holds schema 0, zero threshold 1e-128; push has schema 3, zero threshold 1e-128)",
  });
  const classic = family('# TYPE n histogram\nn_bucket{le="+Inf"} 1\nn_sum 1\nn_count 1\n');
  assert.throws(() => addFamily(held, classic, latest), {
    message: "cannot add n{}: the group holds a native histogram, the push a classic one",
  });
});
