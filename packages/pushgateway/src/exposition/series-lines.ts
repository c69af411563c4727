/**
 * A family's series, each as its exposition line(s) (several for summaries and histograms, joined by `\n`), by index.
 * A plain array is one; the store keeps {@link PackedLines}, and a merged family {@link JoinedLines}.
 */
export interface SeriesLines extends Iterable<string> {
  readonly length: number;
  /** The lines of series `i`, undefined past the end. */
  at(i: number): string | undefined;
  /** Every series' lines joined by `separator`. */
  join(separator: string): string;
}

/**
 * A stored family's series lines as one string, `\n` between series, and where each series ends: one string per
 * family instead of one per series. At 100k series the per-series strings' headers and the arrays holding them were
 * about 3 MB of the heap (bench/pushgateway/README.md). Reading series `i` slices the string (no copy).
 */
export class PackedLines implements SeriesLines {
  /** The series' lines, `\n` after each but the last. */
  readonly text: string;
  /** Per series, the index in `text` just past its lines. */
  readonly ends: Uint16Array | Uint32Array;

  constructor(text: string, ends: Uint16Array | Uint32Array) {
    this.text = text;
    this.ends = ends;
  }

  /** `lines` packed; the string is flat (one copy, no rope or slices of what the lines were cut from). */
  static of(lines: readonly string[]): PackedLines {
    const text = lines.join("\n");
    const ends = text.length < 65536 ? new Uint16Array(lines.length) : new Uint32Array(lines.length);
    let at = 0;
    lines.forEach((line, i) => {
      at += line.length;
      ends[i] = at;
      at++;
    });
    return new PackedLines(text, ends);
  }

  /**
   * Lines that crossed to a worker thread: structured cloning keeps the fields, not the class. Arrays (and lines
   * still packed) are returned as they are.
   */
  static revived(lines: SeriesLines | { text: string; ends: Uint16Array | Uint32Array }): SeriesLines {
    if (lines instanceof PackedLines || Array.isArray(lines)) return lines as SeriesLines;
    const { text, ends } = lines as { text: string; ends: Uint16Array | Uint32Array };
    return new PackedLines(text, ends);
  }

  get length(): number {
    return this.ends.length;
  }

  at(i: number): string | undefined {
    if (!(i >= 0 && i < this.ends.length)) return undefined;
    return this.text.slice(i === 0 ? 0 : (this.ends[i - 1] as number) + 1, this.ends[i]);
  }

  join(separator: string): string {
    return separator === "\n" ? this.text : Array.from(this).join(separator);
  }

  *[Symbol.iterator](): Iterator<string> {
    for (let i = 0; i < this.ends.length; i++) yield this.at(i) as string;
  }

  /** As an array in JSON (Redis snapshots): the same text as before the lines were packed. */
  toJSON(): string[] {
    return Array.from(this);
  }
}

/**
 * Same-named families' lines, one after the other, without copying them into one array (a 100k-entry array for each
 * merged view of the store).
 */
export class JoinedLines implements SeriesLines {
  readonly #parts: readonly SeriesLines[];
  /** Per part, the index of its first series. */
  readonly #starts: Uint32Array;
  readonly length: number;

  constructor(parts: readonly SeriesLines[]) {
    this.#parts = parts;
    this.#starts = new Uint32Array(parts.length);
    let total = 0;
    parts.forEach((p, i) => {
      this.#starts[i] = total;
      total += p.length;
    });
    this.length = total;
  }

  at(i: number): string | undefined {
    if (!(i >= 0 && i < this.length)) return undefined;
    // The last part starting at or before i.
    let lo = 0;
    let hi = this.#starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if ((this.#starts[mid] as number) <= i) lo = mid;
      else hi = mid - 1;
    }
    return this.#parts[lo]?.at(i - (this.#starts[lo] as number));
  }

  join(separator: string): string {
    return this.#parts
      .filter((p) => p.length > 0)
      .map((p) => p.join(separator))
      .join(separator);
  }

  *[Symbol.iterator](): Iterator<string> {
    for (const p of this.#parts) yield* p;
  }

  toJSON(): string[] {
    return Array.from(this);
  }
}
