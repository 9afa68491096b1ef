// The learned estimate of an attempt's chance at a moment, and the planner's choice among the
// moments the rules allow. Pure arithmetic on the table the planner is given.
//
// For decline family f, issuer (brand, BIN) and the payer's local hour h, weekday w and
// day-of-month bucket d:
//
//   base   = approval rate of the issuer, smoothed towards the brand's, towards the family's
//   all_x  = (approvals_x + A · rate) / (attempts_x + A) / rate            over every family
//   lift_x = (approvals_f,x + A · rate_f · all_x) / (attempts_f,x + A) / rate_f   x = h, w, d
//   seen   = base · lift_h · lift_w · lift_d                              (capped at 1)
//   prior  = base · (1 + staticBonus if this is the static model's slot, else 1)
//   chance = (n · seen + K · prior) / (n + K),   n = the fewest attempts behind any lift
//
// A family's margin leans on every family's at the same hour (or weekday, or days) until it
// has attempts of its own there: a 51 retried only at 08:00 so far learns from the 05s
// retried at 16:00 what 16:00 is like.
// a Beta posterior whose prior is today's static model: with no evidence the static slot wins
// (its bonus), and the evidence takes over as the attempts behind each lift grow past K.
import type { Counts, LearnedCounts, LearnedTable } from './table.ts';
import { ALL, keyOf } from './table.ts';
import { HOUR_MS, cellOf, dayBucketLabel, weekdayHourLabel } from './cell.ts';

export interface LearningOptions {
  /** Attempts the static model's prior counts for (K). */
  priorStrength: number;
  /** How much better the prior deems the static model's own slot than its neighbours. */
  staticBonus: number;
  /** Pseudo-attempts pulling each margin towards its family's rate (A). */
  marginStrength: number;
  /** How far, in whole hours, an attempt may move after the static model's slot. */
  reachHours: number;
  /** How far, in whole hours, an attempt may move before it (never before the rules' earliest moment). */
  earlierHours: number;
  /** Attempts behind a slot's estimate below which the plan says it followed the prior. */
  minEvidence: number;
  /** A merchant's own attempts of a family below which the table over every merchant is used. */
  minOwnAttempts: number;
}

export const learningDefaults: LearningOptions = {
  priorStrength: 50,
  staticBonus: 0.25,
  marginStrength: 20,
  reachHours: 24,
  earlierHours: 24,
  minEvidence: 30,
  minOwnAttempts: 200,
};

/** What the planner needs besides the table: the order's family and issuer. */
export interface LearnedInput {
  table: LearnedTable;
  /** The original decline's canonical reason. */
  family: string;
  /** First six digits of the card, when known. */
  bin: string | null;
  options?: Partial<LearningOptions>;
}

export interface SlotWindow {
  earliestMs: number;
  /** Nothing at or after it. */
  deadlineMs: number;
  /** The static model's choice. */
  staticMs: number;
  offsetMs: number;
  brand: string;
}

export interface LearnedSlot {
  atMs: number;
  /** "learned: …" with the evidence, or "prior: <static reason>". */
  evidence: string;
}

const NONE: Counts = { attempts: 0, approvals: 0 };
const smooth = (c: Counts | undefined, prior: number, strength: number) => ((c ?? NONE).approvals + strength * prior) / ((c ?? NONE).attempts + strength);

interface Estimator {
  counts: LearnedCounts;
  scope: string;
  family: string;
  rate: number;
  /** Every family's approval rate. */
  allRate: number;
  base: number;
  o: LearningOptions;
}

function estimator(input: LearnedInput, brand: string, o: LearningOptions): Estimator {
  const own = input.table.merchant.family.get(input.family)?.attempts ?? 0;
  const mine = own >= o.minOwnAttempts;
  const counts = mine ? input.table.merchant : input.table.global;
  const f = counts.family.get(input.family) ?? NONE;
  const rate = (f.approvals + 1) / (f.attempts + 2);
  const all = counts.family.get(ALL) ?? NONE;
  const allRate = (all.approvals + 1) / (all.attempts + 2);
  const brandRate = smooth(counts.brand.get(keyOf(input.family, brand)), rate, o.marginStrength);
  const base = smooth(counts.bin.get(keyOf(input.family, brand, input.bin ?? '')), brandRate, o.marginStrength);
  return { counts, scope: mine ? 'learned' : 'learned (all merchants)', family: input.family, rate, allRate, base, o };
}

interface Estimate {
  chance: number;
  evidence: number;
}

function estimate(e: Estimator, atMs: number, offsetMs: number, isStatic: boolean): Estimate {
  const c = cellOf(atMs, offsetMs);
  const margins: Array<[keyof LearnedCounts, number]> = [['hour', c.localHour], ['weekday', c.weekday], ['day', c.dayBucket]];
  const a = e.o.marginStrength;
  let seen = e.base;
  let evidence = Infinity;
  for (const [margin, bucket] of margins) {
    const own = e.counts[margin].get(keyOf(e.family, bucket));
    const any = e.counts[margin].get(keyOf(ALL, bucket));
    const allLift = smooth(any, e.allRate, a) / e.allRate;
    seen *= smooth(own, e.rate * allLift, a) / e.rate;
    evidence = Math.min(evidence, Math.max(own?.attempts ?? 0, any?.attempts ?? 0));
  }
  const prior = e.base * (isStatic ? 1 + e.o.staticBonus : 1);
  const k = e.o.priorStrength;
  return { chance: (evidence * Math.min(1, seen) + k * prior) / (evidence + k), evidence };
}

const pct = (x: number) => `${Math.round(x * 100)} %`;

function learnedText(e: Estimator, input: LearnedInput, brand: string, atMs: number, offsetMs: number, est: Estimate): string {
  const c = cellOf(atMs, offsetMs);
  const own = e.counts.weekdayHour.get(keyOf(e.family, c.weekday, c.localHour));
  const any = e.counts.weekdayHour.get(keyOf(ALL, c.weekday, c.localHour));
  const cell = own ?? any;
  const seen = cell ? `${pct(cell.approvals / cell.attempts)} of ${cell.attempts} attempts${own ? '' : ' of any decline'}` : 'no attempts yet';
  return `${e.scope}: ${e.family} on ${input.bin ?? brand}, ${weekdayHourLabel(c.weekday, c.localHour)} local: ${seen}` +
    ` (${dayBucketLabel(c.dayBucket)}; expected ${pct(est.chance)} from ${est.evidence} attempts)`;
}

/**
 * The slot with the best expected chance among the whole hours around the static model's
 * slot that the window allows. The window holds every rule (caps, advised delays, expiry
 * margin), so a slot from it breaks none; later moments only free the caps further.
 */
export function learnedSlot(w: SlotWindow, staticReason: string, input: LearnedInput): LearnedSlot {
  const o = { ...learningDefaults, ...input.options };
  const e = estimator(input, w.brand, o);
  let best = { atMs: w.staticMs, est: estimate(e, w.staticMs, w.offsetMs, true) };
  // Nearest first and earlier before later, so a tie keeps the slot closest to the static one.
  for (let k = 1; k <= Math.max(o.reachHours, o.earlierHours); k++) {
    for (const atMs of [k <= o.earlierHours ? w.staticMs - k * HOUR_MS : NaN, k <= o.reachHours ? w.staticMs + k * HOUR_MS : NaN]) {
      if (Number.isNaN(atMs)) continue;
      if (atMs < w.earliestMs || atMs >= w.deadlineMs) continue;
      const est = estimate(e, atMs, w.offsetMs, false);
      if (est.chance > best.est.chance + 1e-12) best = { atMs, est };
    }
  }
  return { atMs: best.atMs, evidence: evidenceOf(e, input, w, staticReason, best) };
}

/**
 * A slot kept on thin evidence was the prior's choice; a slot moved is the evidence's, told by
 * the better-known of the two cells: the slot's own, or the static slot's that it left.
 */
function evidenceOf(e: Estimator, input: LearnedInput, w: SlotWindow, staticReason: string, best: { atMs: number; est: Estimate }): string {
  if (best.atMs === w.staticMs) return best.est.evidence >= e.o.minEvidence ? learnedText(e, input, w.brand, best.atMs, w.offsetMs, best.est) : `prior: ${staticReason}`;
  const left = estimate(e, w.staticMs, w.offsetMs, true);
  if (best.est.evidence >= left.evidence) return learnedText(e, input, w.brand, best.atMs, w.offsetMs, best.est);
  const to = cellOf(best.atMs, w.offsetMs);
  return `${learnedText(e, input, w.brand, w.staticMs, w.offsetMs, left)}, so ${weekdayHourLabel(to.weekday, to.localHour)} instead`;
}
