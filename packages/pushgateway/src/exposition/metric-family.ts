/** Metric types of the text and protobuf formats. */
export type MetricType = "counter" | "gauge" | "summary" | "histogram" | "untyped";

/** One series of a family. Labels are sorted by name once the gateway has sanitised them. */
export interface Metric {
  labels: [string, string][];
  /** Counter, gauge and untyped value. */
  value?: number;
  /** Summary quantiles `[quantile, value]`. */
  quantiles?: [number, number][];
  /** Histogram buckets `[upper bound, cumulative count]`. */
  buckets?: [number, number][];
  sum?: number;
  count?: number;
  /** Milliseconds since the epoch, when the sample carried a timestamp (pushes must not). */
  timestampMs?: number;
}

/** A metric family as pushed and exposed. */
export interface MetricFamily {
  readonly name: string;
  help: string | undefined;
  type: MetricType;
  metrics: Metric[];
}
