import { isFloatHistogram, type NativeHistogram } from "./native-buckets.js";

/**
 * A native histogram with absolute bucket counts by bucket index (Prometheus' numbering: bucket `i` of schema `s`
 * ends at 2^(i·2^-s)), the form in which two histograms are added or an OpenTelemetry exponential histogram is
 * built. `float` histograms keep float counts, integer ones integers.
 */
export interface NativeCounts {
  readonly schema: number;
  readonly zeroThreshold: number;
  readonly float: boolean;
  readonly count: number;
  readonly sum: number;
  readonly zeroCount: number;
  readonly positive: ReadonlyMap<number, number>;
  readonly negative: ReadonlyMap<number, number>;
}

/** A stored native histogram message (`protoValue`) as absolute counts: spans walked, deltas summed. */
export function decodeNative(h: NativeHistogram): NativeCounts {
  const float = isFloatHistogram(h);
  const side = (spans: NativeHistogram["positiveSpan"], deltas?: string[], counts?: (number | string)[]) => {
    const out = new Map<number, number>();
    let index = 0;
    let at = 0;
    let running = 0;
    for (const span of spans ?? []) {
      index += span.offset ?? 0;
      for (let i = 0; i < (span.length ?? 0); i++) {
        running = float ? Number(counts?.[at] ?? 0) : running + Number(deltas?.[at] ?? 0);
        out.set(index, running);
        index++;
        at++;
      }
    }
    return out;
  };
  return {
    schema: h.schema ?? 0,
    zeroThreshold: Number(h.zeroThreshold ?? 0),
    float,
    count: float ? Number(h.sampleCountFloat ?? 0) : Number(h.sampleCount ?? 0),
    sum: Number(h.sampleSum ?? 0),
    zeroCount: float ? Number(h.zeroCountFloat ?? 0) : Number(h.zeroCount ?? 0),
    positive: side(h.positiveSpan, h.positiveDelta, h.positiveCount),
    negative: side(h.negativeSpan, h.negativeDelta, h.negativeCount),
  };
}

/**
 * Absolute counts back into client_model's message (protobufjs JSON, longs as strings): consecutive indexes form one
 * span, integer counts as deltas, float counts absolute (client_model metrics.proto `Histogram`).
 */
export function encodeNative(h: NativeCounts): Record<string, unknown> {
  const side = (buckets: ReadonlyMap<number, number>) => {
    const spans: { offset: number; length: number }[] = [];
    const values: number[] = [];
    let next: number | undefined;
    for (const index of [...buckets.keys()].sort((a, b) => a - b)) {
      const last = spans.at(-1);
      if (last !== undefined && next === index) last.length++;
      else spans.push({ offset: next === undefined ? index : index - next, length: 1 });
      values.push(buckets.get(index) ?? 0);
      next = index + 1;
    }
    let previous = 0;
    const deltas = values.map((v) => {
      const d = v - previous;
      previous = v;
      return String(d);
    });
    return { spans, values, deltas };
  };
  const pos = side(h.positive);
  const neg = side(h.negative);
  const number = (v: number) => (Number.isFinite(v) ? v : String(v));
  const out: Record<string, unknown> = h.float
    ? { sampleCountFloat: h.count, sampleSum: number(h.sum) }
    : { sampleCount: String(h.count), sampleSum: number(h.sum) };
  out.schema = h.schema;
  out.zeroThreshold = number(h.zeroThreshold);
  if (h.float) out.zeroCountFloat = h.zeroCount;
  else out.zeroCount = String(h.zeroCount);
  if (neg.spans.length > 0) {
    out.negativeSpan = neg.spans;
    if (h.float) out.negativeCount = neg.values;
    else out.negativeDelta = neg.deltas;
  }
  if (pos.spans.length > 0) {
    out.positiveSpan = pos.spans;
    if (h.float) out.positiveCount = pos.values;
    else out.positiveDelta = pos.deltas;
  }
  // A histogram with no populated bucket is still native: client_golang sends a zero-length span for it.
  if (neg.spans.length === 0 && pos.spans.length === 0) out.positiveSpan = [{ offset: 0, length: 0 }];
  return out;
}
