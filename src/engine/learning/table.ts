// The learned-timing table as the planner reads it: attempts and approvals summed along the
// dimensions the estimate uses (per decline family: overall, per brand, per issuer, per local
// hour, weekday and day-of-month bucket, and per weekday × hour for the evidence a plan
// shows), for one merchant and over every merchant. Plain data, built once per load and then
// only read, so the planner stays a pure function of its input.

import type { GroupedRow } from '../../db/queries/learned-timing.ts';
export interface Counts {
  attempts: number;
  approvals: number;
}

/** A grouped row of the stored table (src/db/queries/learned-timing.ts): a part left out of the grouping is null. */
export type LearnedRow = GroupedRow;

export type Margin = 'family' | 'brand' | 'bin' | 'hour' | 'weekday' | 'day' | 'weekdayHour';

/** One scope's sums, by margin, under keys built with keyOf. */
export type LearnedCounts = Record<Margin, ReadonlyMap<string, Counts>>;

export interface LearnedTable {
  merchant: LearnedCounts;
  global: LearnedCounts;
}

/** The family key of the sums over every family. */
export const ALL = '*';

export const keyOf = (...parts: Array<string | number>): string => parts.join('|');

/** Which margin a grouped row belongs to, from the parts it keeps. */
function marginOf(r: LearnedRow): [Margin, string] | undefined {
  const f = r.family ?? ALL;
  if (r.bin !== null && r.brand !== null) return ['bin', keyOf(f, r.brand, r.bin)];
  if (r.brand !== null) return ['brand', keyOf(f, r.brand)];
  if (r.weekday !== null && r.localHour !== null) return ['weekdayHour', keyOf(f, r.weekday, r.localHour)];
  if (r.localHour !== null) return ['hour', keyOf(f, r.localHour)];
  if (r.weekday !== null) return ['weekday', keyOf(f, r.weekday)];
  if (r.dayBucket !== null) return ['day', keyOf(f, r.dayBucket)];
  return ['family', f];
}

export function buildCounts(rows: readonly LearnedRow[]): LearnedCounts {
  const out: Record<Margin, Map<string, Counts>> = {
    family: new Map(), brand: new Map(), bin: new Map(), hour: new Map(), weekday: new Map(), day: new Map(), weekdayHour: new Map(),
  };
  for (const r of rows) {
    const m = marginOf(r);
    if (!m || !(r.attempts > 0)) continue;
    const approvals = Math.min(Math.max(0, r.approvals), r.attempts);
    out[m[0]].set(m[1], { attempts: r.attempts, approvals });
  }
  return out;
}

export const emptyCounts = (): LearnedCounts => buildCounts([]);

export function buildLearnedTable(own: readonly LearnedRow[], global: readonly LearnedRow[]): LearnedTable {
  return { merchant: buildCounts(own), global: buildCounts(global) };
}
