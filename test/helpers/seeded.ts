// The tests' and benches' one seeded generator: the same seed draws the same "random" inputs
// on every run, so a failure found by a generated case can be replayed from its seed.

/** mulberry32: a small, fast generator of numbers uniform in [0, 1). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
