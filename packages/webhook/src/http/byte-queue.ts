/** Bytes read off a connection and not yet taken, as the chunks they arrived in. */
export class ByteQueue {
  #chunks: Buffer[] = [];
  #bytes = 0;

  /** How many bytes are waiting. */
  get bytes(): number {
    return this.#bytes;
  }

  get empty(): boolean {
    return this.#chunks.length === 0;
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.#chunks.push(chunk);
    this.#bytes += chunk.length;
  }

  /** The oldest chunk; only when not {@link empty}. */
  take(): Buffer {
    const chunk = this.#chunks.shift() as Buffer;
    this.#bytes -= chunk.length;
    return chunk;
  }

  /** Puts back the part of a taken chunk that was not used, to be taken first. */
  giveBack(rest: Buffer): void {
    if (rest.length === 0) return;
    this.#chunks.unshift(rest);
    this.#bytes += rest.length;
  }

  /** Drops up to `max` leading bytes that match; returns how many were dropped. */
  dropLeading(matches: (byte: number) => boolean, max: number): number {
    let dropped = 0;
    while (dropped < max && !this.empty) {
      const chunk = this.take();
      let at = 0;
      while (at < chunk.length && dropped < max && matches(chunk[at] as number)) {
        at++;
        dropped++;
      }
      this.giveBack(chunk.subarray(at));
      if (at < chunk.length) break;
    }
    return dropped;
  }

  clear(): void {
    this.#chunks = [];
    this.#bytes = 0;
  }
}
