/** A deterministic pseudo-random sequence in [0, 1) (xorshift32), so a failing run can be replayed. */
export function xorshift32(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}
