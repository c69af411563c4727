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
  /**
   * A protobuf push's value message (`counter`, `summary` or `histogram` of client_model's `Metric`) as protobufjs
   * JSON, longs as strings, non-finite doubles as `"NaN"`/`"Infinity"`: set only when it carries what the text
   * format cannot (native histogram buckets, exemplars, float counts, created timestamps). Protobuf scrapes and the
   * persistence file carry it unchanged; text scrapes show the classic fields.
   */
  protoValue?: string;
  /**
   * Set on a protobuf series without the value message of its family's type (a gauge family's series carrying only
   * `counter`, or nothing): client_golang refuses it in a checked push (registry.go checkMetricConsistency).
   */
  valueMissing?: true;
}

/** A metric family as pushed and exposed. */
export interface MetricFamily {
  readonly name: string;
  help: string | undefined;
  type: MetricType;
  metrics: Metric[];
}
