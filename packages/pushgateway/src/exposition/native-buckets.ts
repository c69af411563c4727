import { SCHEMA_8_BOUNDS } from "./exponential-bounds.js";

/** A native histogram's value message as the store keeps it (`Metric.protoValue`, protobufjs JSON, longs as strings). */
export interface NativeHistogram {
  sampleCount?: string;
  sampleCountFloat?: number | string;
  sampleSum?: number | string;
  schema?: number;
  zeroThreshold?: number | string;
  zeroCount?: string;
  zeroCountFloat?: number | string;
  negativeSpan?: { offset?: number; length?: number }[];
  negativeDelta?: string[];
  negativeCount?: (number | string)[];
  positiveSpan?: { offset?: number; length?: number }[];
  positiveDelta?: string[];
  positiveCount?: (number | string)[];
}

/** One populated bucket: Prometheus's boundary kind (0 `(]`, 1 `[)`, 3 `[]`), lower and upper bound, count. */
export interface NativeBucket {
  readonly boundaries: 0 | 1 | 3;
  readonly lower: number;
  readonly upper: number;
  readonly count: number;
}

/** Whether a histogram has native buckets (upstream api/v1/api.go: any negative or positive span). */
export function isNative(h: NativeHistogram): boolean {
  return (h.negativeSpan?.length ?? 0) + (h.positiveSpan?.length ?? 0) > 0;
}

/** Whether it is a float histogram (prometheus/pushgateway histogram/prometheus_model.go `NewModelHistogram`). */
export function isFloatHistogram(h: NativeHistogram): boolean {
  return Number(h.sampleCountFloat ?? 0) > 0 || Number(h.zeroCountFloat ?? 0) > 0;
}

/**
 * The populated buckets in ascending order: negative ones from the most negative, the zero bucket, positive ones;
 * empty buckets left out (histogram/prometheus_model.go `GetAPIBuckets`, Prometheus model/histogram iterators).
 * Integer histograms carry deltas, float ones absolute counts.
 */
export function nativeBuckets(h: NativeHistogram): NativeBucket[] {
  const float = isFloatHistogram(h);
  const schema = h.schema ?? 0;
  const side = (
    spans: NativeHistogram["positiveSpan"],
    deltas: string[] = [],
    counts: (number | string)[] = [],
  ) => {
    const out: { index: number; count: number }[] = [];
    let index = 0;
    let at = 0;
    let running = 0;
    for (const span of spans ?? []) {
      index += span.offset ?? 0;
      for (let i = 0; i < (span.length ?? 0); i++) {
        if (float) running = Number(counts[at] ?? 0);
        else running += Number(deltas[at] ?? 0);
        out.push({ index, count: running });
        index++;
        at++;
      }
    }
    return out.filter((b) => b.count !== 0);
  };
  const negative = side(h.negativeSpan, h.negativeDelta, h.negativeCount);
  const positive = side(h.positiveSpan, h.positiveDelta, h.positiveCount);
  const zeroCount = float ? Number(h.zeroCountFloat ?? 0) : Number(h.zeroCount ?? 0);
  const threshold = Number(h.zeroThreshold ?? 0);
  return [
    ...negative.reverse().map((b) => ({
      boundaries: 1 as const,
      lower: -bound(b.index, schema),
      upper: -bound(b.index - 1, schema),
      count: b.count,
    })),
    ...(zeroCount !== 0
      ? [{ boundaries: 3 as const, lower: -threshold, upper: threshold, count: zeroCount }]
      : []),
    ...positive.map((b) => ({
      boundaries: 0 as const,
      lower: bound(b.index - 1, schema),
      upper: bound(b.index, schema),
      count: b.count,
    })),
  ];
}

/**
 * The upper bound of bucket `index` at `schema`: 2^(index·2^-schema), from the same table as Prometheus
 * (model/histogram generic.go `getBound`, whose last finite bucket ends at the largest float64).
 */
function bound(index: number, schema: number): number {
  if (schema < 0) {
    const exp = index * 2 ** -schema;
    return exp === 1024 ? Number.MAX_VALUE : 2 ** exp;
  }
  const per = 2 ** schema;
  const fracIndex = ((index % per) + per) % per;
  const frac = SCHEMA_8_BOUNDS[fracIndex * 2 ** (8 - schema)] ?? 0.5;
  const exp = Math.floor(index / per) + 1;
  if (frac === 0.5 && exp === 1025) return Number.MAX_VALUE;
  // (frac·2)·2^(exp-1): Go's math.Ldexp(frac, exp) without overflowing 2^1024 on the way.
  return frac * 2 * 2 ** (exp - 1);
}
