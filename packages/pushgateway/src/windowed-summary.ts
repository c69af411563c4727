/** A quantile to report and the rank error allowed for it (client_golang's `Objectives`: 0.5 → 0.05 is ±5 %). */
export type Objective = readonly [quantile: number, error: number];

/** Options of {@link WindowedSummary}; the defaults are client_golang's, which upstream's push summaries use. */
export interface WindowedSummaryOptions {
  readonly objectives: readonly Objective[];
  /** How far back the quantiles look. @default 600_000 (10 minutes) */
  readonly maxAgeMs?: number;
  /** Streams the window is split into; the oldest is dropped every `maxAgeMs / ageBuckets`. @default 5 */
  readonly ageBuckets?: number;
  /** The clock (milliseconds). @default Date.now */
  readonly now?: () => number;
}

/** Observations a summary, and each of its streams, buffer before passing them on (client_golang's and perks' 500). */
const BUFFER_SIZE = 500;

/**
 * A streaming estimate of targeted quantiles: the biased-quantiles algorithm of Cormode, Korn, Muthukrishnan and
 * Srivastava ("Effective computation of biased quantiles over data streams", 2005), buffered as the beorn7/perks
 * package behind client_golang's summaries buffers it: observations collect in a buffer of 500 that is sorted and
 * merged into the samples when full or read, and a stream that never merged answers exactly from its buffer. Fed the
 * same values and read at the same points, it gives client_golang's estimates (test/windowed-summary.peers.test.ts).
 * The samples live in three parallel number arrays: no object per sample.
 */
class QuantileStream {
  readonly #objectives: readonly Objective[];
  #buffer: number[] = [];
  /** Per sample: its value, its width (observations it stands for) and the uncertainty of its rank. */
  #values: number[] = [];
  #widths: number[] = [];
  #deltas: number[] = [];
  /** Observations merged into the samples. */
  #n = 0;

  constructor(objectives: readonly Objective[]) {
    this.#objectives = objectives;
  }

  get count(): number {
    return this.#n + this.#buffer.length;
  }

  get samples(): number {
    return this.#values.length;
  }

  insert(value: number): void {
    this.#buffer.push(value);
    if (this.#buffer.length >= BUFFER_SIZE) this.#flush();
  }

  /** The rank error the invariant allows at rank `r` (the minimum over the objectives). */
  #allowed(r: number): number {
    let m = Number.MAX_VALUE;
    for (const [q, e] of this.#objectives) {
      const f = q * this.#n <= r ? (2 * e * r) / q : (2 * e * (this.#n - r)) / (1 - q);
      if (f < m) m = f;
    }
    return m;
  }

  /** Merges the buffer, sorted, into the samples and compresses them. */
  #flush(): void {
    if (this.#buffer.length === 0) return;
    const batch = this.#buffer.sort((a, b) => a - b);
    this.#buffer = [];
    const values: number[] = [];
    const widths: number[] = [];
    const deltas: number[] = [];
    let i = 0;
    let r = 0;
    for (const v of batch) {
      while (i < this.#values.length && (this.#values[i] as number) <= v) {
        values.push(this.#values[i] as number);
        widths.push(this.#widths[i] as number);
        deltas.push(this.#deltas[i] as number);
        r += this.#widths[i] as number;
        i++;
      }
      // A new sample's rank is uncertain by what the invariant allows there, except past the largest value.
      values.push(v);
      widths.push(1);
      deltas.push(i < this.#values.length ? Math.max(0, Math.floor(this.#allowed(r)) - 1) : 0);
      this.#n++;
      r++;
    }
    for (; i < this.#values.length; i++) {
      values.push(this.#values[i] as number);
      widths.push(this.#widths[i] as number);
      deltas.push(this.#deltas[i] as number);
    }
    this.#values = values;
    this.#widths = widths;
    this.#deltas = deltas;
    this.#compress();
  }

  /** Folds each sample into its right neighbour where the invariant still holds, from the top down. */
  #compress(): void {
    const n = this.#values.length;
    if (n < 2) return;
    const keep = new Array<boolean>(n).fill(true);
    let x = n - 1;
    let r = this.#n - 1 - (this.#widths[x] as number);
    for (let i = n - 2; i >= 0; i--) {
      const w = this.#widths[i] as number;
      if (w + (this.#widths[x] as number) + (this.#deltas[x] as number) <= this.#allowed(r)) {
        this.#widths[x] = (this.#widths[x] as number) + w;
        keep[i] = false;
      } else {
        x = i;
      }
      r -= w;
    }
    this.#values = this.#values.filter((_, i) => keep[i]);
    this.#widths = this.#widths.filter((_, i) => keep[i]);
    this.#deltas = this.#deltas.filter((_, i) => keep[i]);
  }

  /** The estimate of quantile `q`; NaN when nothing was observed. */
  query(q: number): number {
    if (this.count === 0) return Number.NaN;
    if (this.#values.length === 0) {
      // Never merged: the buffer holds every observation, and the answer is exact (nearest rank).
      this.#buffer.sort((a, b) => a - b);
      return this.#buffer[Math.max(0, Math.ceil(this.#buffer.length * q) - 1)] as number;
    }
    this.#flush();
    let t = Math.ceil(q * this.#n);
    t += Math.ceil(this.#allowed(t) / 2);
    let r = 0;
    for (let i = 1; i < this.#values.length; i++) {
      r += this.#widths[i - 1] as number;
      if (r + (this.#widths[i] as number) + (this.#deltas[i] as number) > t)
        return this.#values[i - 1] as number;
    }
    return this.#values[this.#values.length - 1] as number;
  }

  reset(): void {
    this.#buffer = [];
    this.#values = [];
    this.#widths = [];
    this.#deltas = [];
    this.#n = 0;
  }
}

/**
 * A summary over a sliding window, as client_golang's `Summary` with `MaxAge` and `AgeBuckets`: every observation
 * goes into each of `ageBuckets` streams; every `maxAgeMs / ageBuckets` the oldest stream is emptied and the next one
 * answers, so the quantiles cover the last 8 to 10 minutes by default. The count and sum cover all time.
 *
 * Why not prom-client's `Summary`: it pushes every observation into five t-digests at once, each a red-black tree
 * searched through short-lived iterator objects. Under 20 concurrent pushes that cost three replicas 12-14 % of their
 * CPU and the single process 5 % (bench/pushgateway/README.md); this buffers 500 observations and merges them sorted.
 */
export class WindowedSummary {
  readonly #objectives: readonly Objective[];
  readonly #streams: QuantileStream[];
  readonly #streamMs: number;
  readonly #now: () => number;
  #buffer: number[] = [];
  #head = 0;
  /** When the head stream is emptied and the next one takes over (ms). */
  #headExpires: number;
  #count = 0;
  #sum = 0;

  constructor(options: WindowedSummaryOptions) {
    const ageBuckets = options.ageBuckets ?? 5;
    this.#objectives = [...options.objectives].sort(([a], [b]) => a - b);
    this.#streams = Array.from({ length: ageBuckets }, () => new QuantileStream(this.#objectives));
    this.#streamMs = (options.maxAgeMs ?? 600_000) / ageBuckets;
    this.#now = options.now ?? Date.now;
    this.#headExpires = this.#now() + this.#streamMs;
  }

  observe(value: number): void {
    this.#rotate();
    this.#buffer.push(value);
    this.#count++;
    this.#sum += value;
    if (this.#buffer.length >= BUFFER_SIZE) this.#flush();
  }

  /** Observations since the start, and their sum. */
  get count(): number {
    return this.#count;
  }

  get sum(): number {
    return this.#sum;
  }

  /** Samples the fullest stream keeps (the estimate's memory, besides buffers of at most 500). */
  get samples(): number {
    return Math.max(...this.#streams.map((s) => s.samples));
  }

  /** `[quantile, estimate]` per objective, ascending; NaN estimates when the window holds no observation. */
  quantiles(): [number, number][] {
    this.#rotate();
    this.#flush();
    const head = this.#streams[this.#head] as QuantileStream;
    return this.#objectives.map(([q]) => [q, head.query(q)]);
  }

  /** Buffered observations go into every stream before one is emptied, as they arrived before it expired. */
  #rotate(): void {
    const now = this.#now();
    // Strictly after, as Go's time.After.
    if (now <= this.#headExpires) return;
    this.#flush();
    while (now > this.#headExpires) {
      (this.#streams[this.#head] as QuantileStream).reset();
      this.#head = (this.#head + 1) % this.#streams.length;
      this.#headExpires += this.#streamMs;
    }
  }

  /** Hands the buffered observations to every stream, in the order they came (client_golang's `flushColdBuf`). */
  #flush(): void {
    const batch = this.#buffer;
    this.#buffer = [];
    for (const v of batch) for (const stream of this.#streams) stream.insert(v);
  }
}
