// What the engine has learned about timing (docs/engine.md "Learned timing"), for the report:
// per original decline, the attempts counted and the local hours that approve best and worst.
// The table is cumulative, so `since` does not narrow it.
import type { Db } from '../db/client.ts';
import { learnedHours, type LearnedHourRow } from '../db/queries/learned-timing.ts';
import type { LearnedTiming } from './schema.ts';

/** An hour is ranked once it has this many attempts: fewer say more about chance than about the hour. */
export const RANKED_HOUR_MIN_ATTEMPTS = 20;
const RANKED = 3;

const rate = (h: LearnedHourRow) => h.approvals / h.attempts;

export function learnedTimingOf(rows: readonly LearnedHourRow[], cells: number, minAttempts = RANKED_HOUR_MIN_ATTEMPTS): LearnedTiming {
  const byFamily = new Map<string, LearnedHourRow[]>();
  for (const r of rows) byFamily.set(r.family, [...(byFamily.get(r.family) ?? []), r]);
  const sum = (list: readonly LearnedHourRow[], k: 'attempts' | 'approvals') => list.reduce((s, r) => s + r[k], 0);
  const families = [...byFamily.entries()].map(([family, hours]) => {
    const ranked = hours.filter((h) => h.attempts >= minAttempts).sort((a, b) => rate(b) - rate(a) || b.attempts - a.attempts || a.localHour - b.localHour);
    const view = (h: LearnedHourRow) => ({ hour: h.localHour, attempts: h.attempts, approvals: h.approvals });
    return {
      family, attempts: sum(hours, 'attempts'), approvals: sum(hours, 'approvals'),
      best: ranked.slice(0, RANKED).map(view),
      worst: ranked.slice(RANKED).reverse().slice(0, RANKED).map(view),
    };
  }).sort((a, b) => b.attempts - a.attempts || a.family.localeCompare(b.family));
  return { cells, attempts: sum(rows, 'attempts'), approvals: sum(rows, 'approvals'), minAttempts, families };
}

export async function learnedTiming(db: Db, merchantId: string | undefined): Promise<LearnedTiming> {
  const { hours, cells } = await learnedHours(db, merchantId);
  return learnedTimingOf(hours, cells);
}
