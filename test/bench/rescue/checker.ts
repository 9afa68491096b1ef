// An independent checker of the card networks' retry rules, applied to every attempt a
// strategy sent (the simulation processor's log for rescued), over every 30-day and 24-hour
// window: each attempt is judged against the window that ends at it, so every window is
// covered. Written from shared/reference/card-networks.md alone, sharing no code with the
// engine's rules (src/engine/rules.ts, caps.ts), so a bug there cannot hide here.
//
// - Visa (card-networks.md, "Visa decline categories"): no reattempt after a category 1 code;
//   categories 2–4 at most 15 reattempts per card in 30 days (the 2021–2025 rule; Visa allows
//   20 from April 2026, but acquirers still publish 15, so 15 is the stricter reading here).
// - Mastercard ("Mastercard Merchant Advice Codes", "Excessive attempts"): no attempt within
//   30 days after MAC 03 or 21; none before the delay of MAC 24–30; at most 35 attempts per card
//   in 30 days; at most 20 declines per card in 24 hours. The original decline counts as an
//   attempt and a decline (it was one, at the merchant's own gateway).
// Each card belongs to one order here (one payer, one rebill), so per card is per order.
import type { Trial } from './fixed.ts';

const DAY = 86_400_000;
const HOUR = 3_600_000;

export const RULES = ['visaCategory1Retried', 'visaOver15In30Days', 'mastercardMac0321Retried', 'mastercardMacDelayBroken', 'mastercardOver35In30Days', 'mastercardOver20DeclinesIn24h'] as const;
export type Rule = (typeof RULES)[number];

export interface Violations {
  byRule: Record<Rule, number>;
  /** Attempts that broke at least one rule. */
  attempts: number;
}

const VISA_CATEGORY_1 = new Set(['04', '07', '12', '14', '15', '41', '43', '46', 'R0', 'R1', 'R3']);
// 57 joins category 1 from 25 October 2026.
const VISA_57_CATEGORY_1_FROM = Date.parse('2026-10-25T00:00:00Z');
const MAC_DO_NOT_RETRY = new Set(['03', '21']);
const MAC_DELAY: Readonly<Record<string, number>> = { '24': HOUR, '25': 24 * HOUR, '26': 2 * DAY, '27': 4 * DAY, '28': 6 * DAY, '29': 8 * DAY, '30': 10 * DAY };

interface Event {
  atMs: number;
  approved: boolean;
  code: string;
  advice?: string;
  /** The merchant's original decline (not a reattempt). */
  original: boolean;
}

export function emptyViolations(): Violations {
  return { byRule: Object.fromEntries(RULES.map((r) => [r, 0])) as Record<Rule, number>, attempts: 0 };
}

export function checkTrials(trials: readonly Trial[]): Violations {
  const out = emptyViolations();
  for (const t of trials) {
    const events: Event[] = [
      { atMs: t.payer.declineAtMs, approved: false, code: t.payer.originalCode, original: true },
      ...t.attempts.map((a) => ({ ...a, original: false })),
    ];
    for (let i = 1; i < events.length; i++) {
      const broken = t.payer.brand === 'visa' ? visaRules(events, i) : t.payer.brand === 'mastercard' ? mastercardRules(events, i) : [];
      for (const rule of broken) out.byRule[rule]++;
      if (broken.length > 0) out.attempts++;
    }
  }
  return out;
}

function isVisaCategory1(code: string, atMs: number): boolean {
  return VISA_CATEGORY_1.has(code) || (code === '57' && atMs >= VISA_57_CATEGORY_1_FROM);
}

/** The rules attempt `i` (a reattempt) breaks on a Visa card. */
function visaRules(events: readonly Event[], i: number): Rule[] {
  const at = events[i]!.atMs;
  const broken: Rule[] = [];
  if (events.slice(0, i).some((e) => !e.approved && isVisaCategory1(e.code, e.atMs))) broken.push('visaCategory1Retried');
  const reattempts = events.slice(0, i + 1).filter((e) => !e.original && e.atMs > at - 30 * DAY).length;
  if (reattempts > 15) broken.push('visaOver15In30Days');
  return broken;
}

/** The rules attempt `i` breaks on a Mastercard card. */
function mastercardRules(events: readonly Event[], i: number): Rule[] {
  const e = events[i]!;
  const at = e.atMs;
  const before = events.slice(0, i);
  const broken: Rule[] = [];
  if (before.some((p) => p.advice && MAC_DO_NOT_RETRY.has(p.advice) && p.atMs > at - 30 * DAY)) broken.push('mastercardMac0321Retried');
  if (before.some((p) => p.advice && MAC_DELAY[p.advice] !== undefined && at < p.atMs + MAC_DELAY[p.advice]!)) broken.push('mastercardMacDelayBroken');
  const upToHere = events.slice(0, i + 1);
  if (upToHere.filter((p) => p.atMs > at - 30 * DAY).length > 35) broken.push('mastercardOver35In30Days');
  if (!e.approved && upToHere.filter((p) => !p.approved && p.atMs > at - 24 * HOUR).length > 20) broken.push('mastercardOver20DeclinesIn24h');
  return broken;
}
