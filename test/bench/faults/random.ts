// The campaign's randomness: one seeded generator per trial (derived from the run's seed and
// the trial's name), so a trial that fails can be run again with the same faults at the same
// moments (`--seed`, printed at the start).
import { seeded } from '../../helpers/seeded.ts';

export type Random = () => number;

/** A generator for one trial: the run's seed mixed with the trial's label (FNV-1a). */
export function trialRandom(seed: number, label: string): Random {
  let h = 0x811c9dc5 ^ seed;
  for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x01000193);
  return seeded(h >>> 0);
}

/** A whole number in [lo, hi]. */
export const between = (random: Random, lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
