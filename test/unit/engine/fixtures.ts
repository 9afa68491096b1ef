// Shared builders for the planner tests: orders, declines, attempt histories, a seeded PRNG,
// and a local-calendar reading that does not reuse the planner's own helpers.
import { seeded } from '../../helpers/seeded.ts';
import { classifyDecline } from '../../../src/declines/classify.ts';
import type { DeclineInput } from '../../../src/declines/classify.ts';
import type { AttemptRecord, PlanInput, PlanOrder } from '../../../src/engine/plan-types.ts';

export const H = 3_600_000;
export const D = 24 * H;

export function order(over: Partial<PlanOrder> = {}): PlanOrder {
  const createdAt = over.createdAt ?? new Date('2026-03-10T14:00:00Z');
  return {
    id: 'order-1',
    amount: 1999,
    currency: 'USD',
    cardBrand: 'VISA',
    expiryDateUtc: new Date(createdAt.getTime() + 20 * D),
    timezoneUtcOffset: 0,
    createdAt,
    isMIT: true,
    ...over,
  };
}

export function decline(input: DeclineInput) {
  return classifyDecline({ responseCodeSource: 'ISO', ...input });
}

export function input(over: Partial<PlanInput> & { order?: PlanOrder } = {}): PlanInput {
  const o = over.order ?? order();
  return {
    order: o,
    decline: decline({ responseCode: '05', cardBrand: o.cardBrand }),
    attempts: [],
    cardAttempts: [],
    now: o.createdAt,
    ...over,
  };
}

export function declinedAt(ms: number, responseCode = '05', adviceCode?: string): AttemptRecord {
  return adviceCode ? { at: new Date(ms), responseCode, adviceCode, approved: false } : { at: new Date(ms), responseCode, approved: false };
}


export function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)] as T;
}

/** The payer's wall clock for a UTC instant, given the offset in minutes. */
export function localClock(at: Date, offsetMinutes: number) {
  const d = new Date(at.getTime() + offsetMinutes * 60_000);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth(), day: d.getUTCDate(), weekday: d.getUTCDay(), hour: d.getUTCHours() };
}

/** A Friday, or a Monday–Friday that is the 1st, 15th, 25th, 28th or last Monday–Friday of the month. */
export function isLocalPayday(c: ReturnType<typeof localClock>): boolean {
  if (c.weekday === 5) return true;
  if (c.weekday === 0 || c.weekday === 6) return false;
  if ([1, 15, 25, 28].includes(c.day)) return true;
  const last = new Date(Date.UTC(c.year, c.month + 1, 0));
  while (last.getUTCDay() === 0 || last.getUTCDay() === 6) last.setUTCDate(last.getUTCDate() - 1);
  return c.day === last.getUTCDate();
}

export function countSince(attempts: readonly AttemptRecord[], fromMs: number, toMs: number, declinesOnly = false): number {
  return attempts.filter((a) => a.at.getTime() > fromMs && a.at.getTime() <= toMs && (!declinesOnly || !a.approved)).length;
}

/** A seeded generator (test/helpers/seeded.ts), so "random" inputs are the same on every run. */
export const prng = seeded;
