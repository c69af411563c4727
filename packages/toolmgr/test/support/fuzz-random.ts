/**
 * A seeded pseudo-random generator for the property fuzzer (mulberry32: 32 bits of state, good enough to spread test
 * inputs, and the same sequence on every machine for one seed).
 */
export class Random {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of a non-empty list. */
  pick<T>(list: readonly T[]): T {
    if (list.length === 0) throw new RangeError("pick from an empty list");
    return list[Math.floor(this.next() * list.length)] as T;
  }

  /** `count` hex digits. */
  hex(count: number): string {
    let out = "";
    for (let i = 0; i < count; i++) out += "0123456789abcdef"[this.int(0, 15)];
    return out;
  }
}
