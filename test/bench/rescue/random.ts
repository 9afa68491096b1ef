// Seeded draws for the simulation: every draw is a pure function of the run's seed and a key
// (the order, what is drawn, and for an attempt its minute), never of the order in which
// draws are made. So every strategy meets the same payers, and two strategies that try the
// same order in the same minute get the same answer from the issuer.

/** A 32-bit hash of the seed and the key's parts (MurmurHash3's mixing of FNV-1a). */
function hash(seed: number, parts: readonly (string | number)[]): number {
  let h = 0x811c9dc5 ^ seed;
  for (const part of parts) {
    const text = `${part}\u0001`;
    for (let i = 0; i < text.length; i++) {
      h ^= text.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A uniform draw in [0, 1) for this seed and key. */
export function uniform(seed: number, ...key: (string | number)[]): number {
  return hash(seed, key) / 4_294_967_296;
}

/** The name whose share holds `u`, shares taken in the object's order (they need not sum to 1). */
export function pickShare<K extends string>(shares: Readonly<Record<K, number>>, u: number): K {
  const entries = Object.entries(shares) as [K, number][];
  const total = entries.reduce((sum, [, s]) => sum + s, 0);
  let acc = 0;
  for (const [name, share] of entries) {
    acc += share / total;
    if (u < acc) return name;
  }
  return entries[entries.length - 1]![0];
}

/** The item whose `share` holds `u`. */
export function pickItem<T extends { share: number }>(items: readonly T[], u: number): T {
  const total = items.reduce((sum, i) => sum + i.share, 0);
  let acc = 0;
  for (const item of items) {
    acc += item.share / total;
    if (u < acc) return item;
  }
  return items[items.length - 1]!;
}

/** An exponential draw with this mean (inverse transform). */
export function exponential(mean: number, u: number): number {
  return -mean * Math.log(1 - u);
}

/** A log-normal draw with this median and log-scale sigma (Box–Muller from two uniforms). */
export function logNormal(median: number, sigma: number, u1: number, u2: number): number {
  const z = Math.sqrt(-2 * Math.log(1 - u1)) * Math.cos(2 * Math.PI * u2);
  return median * Math.exp(sigma * z);
}
