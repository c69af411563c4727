import { flatString } from "../flat-string.js";

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
 * family instead of one per series. The start the lines have in common (the metric name and the labels that sort
 * before the first that differs, often the group's own) is kept once. At 100k series the per-series strings' headers
 * and the arrays holding them were about 3 MB of the heap, the common starts about 4 MB more
 * (bench/pushgateway/README.md). Reading series `i` slices the string and prefixes the common start (no copy).
 */
export class PackedLines implements SeriesLines {
  /** What every series' lines start with. */
  readonly prefix: string;
  /** The series' lines after the prefix, `\n` after each but the last. */
  readonly text: string;
  /** Per series, the index in `text` just past its lines. */
  readonly ends: Uint16Array | Uint32Array;

  constructor(prefix: string, text: string, ends: Uint16Array | Uint32Array) {
    this.prefix = prefix;
    this.text = text;
    this.ends = ends;
  }

  /** `lines` packed; the strings are flat (copies, no rope or slices of what the lines were cut from). */
  static of(lines: readonly string[]): PackedLines {
    let common = lines[0]?.length ?? 0;
    const first = lines[0] ?? "";
    for (const line of lines) {
      if (common > line.length) common = line.length;
      let i = 0;
      while (i < common && line.charCodeAt(i) === first.charCodeAt(i)) i++;
      common = i;
      if (common === 0) break;
    }
    // Not between the halves of a surrogate pair: the prefix is copied through UTF-8 (flatString).
    const last = first.charCodeAt(common - 1);
    if (common > 0 && last >= 0xd800 && last <= 0xdbff) common--;
    const prefix = flatString(first.slice(0, common));
    // join copies: one flat string, no slices of the lines kept.
    const text = lines.map((line) => line.slice(common)).join("\n");
    const ends = text.length < 65536 ? new Uint16Array(lines.length) : new Uint32Array(lines.length);
    let at = 0;
    lines.forEach((line, i) => {
      at += line.length - common;
      ends[i] = at;
      at++;
    });
    return new PackedLines(prefix, text, ends);
  }

  /**
   * Lines that crossed to a worker thread: structured cloning keeps the fields, not the class. Arrays (and lines
   * still packed) are returned as they are.
   */
  static revived(lines: SeriesLines | Pick<PackedLines, "prefix" | "text" | "ends">): SeriesLines {
    if (lines instanceof PackedLines || Array.isArray(lines)) return lines as SeriesLines;
    const { prefix, text, ends } = lines as Pick<PackedLines, "prefix" | "text" | "ends">;
    return new PackedLines(prefix, text, ends);
  }

  get length(): number {
    return this.ends.length;
  }

  at(i: number): string | undefined {
    if (!(i >= 0 && i < this.ends.length)) return undefined;
    return this.prefix + this.text.slice(i === 0 ? 0 : (this.ends[i - 1] as number) + 1, this.ends[i]);
  }

  join(separator: string): string {
    return Array.from(this).join(separator);
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
