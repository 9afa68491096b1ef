// An independent checker of the card networks' retry rules, written from
// shared/reference/card-networks.md alone and sharing no code with the engine (src/ is not
// imported, directly or not: test/unit/bench/rescue-world.test.ts checks the import graph).
// It judges every attempt a strategy made against everything the card saw at the merchant
// before it: each order's original decline, the merchant's own retries before the hand-over,
// and the strategy's attempts on every order of the card. Each attempt is judged against the
// window that ends at it, so every 30-day and 24-hour window is covered.
//
// - Visa: no reattempt of a transaction after a category 1 code; at most 20 reattempts per
//   credential in 30 days (the rule in force in 2026). The original decline is not a
//   reattempt (Visa's wording); the merchant's own retries are. The stricter 15 of the
//   2021–2025 rule, which some acquirers still publish, is counted apart as a margin.
// - Mastercard: no attempt on the card within 30 days after MAC 03 or 21; none before a MAC
//   24–30 delay has run out; at most 35 authorizations per card in 30 days and 20 declines in
//   24 hours, every authorization counted, originals and the merchant's own retries included.
// - Every simulated card is one credential (no network token beside its number) and every
//   order is a merchant-initiated rebill, so Visa's CIT and MIT counters are one here.
import type { CardEvent } from './bank.ts';

const DAY = 86_400_000;
const HOUR = 3_600_000;

export const RULES = ['visaCategory1', 'visaOver20In30Days', 'mastercardMac0321', 'mastercardMacDelay', 'mastercardOver35In30Days', 'mastercardOver20DeclinesIn24h'] as const;
export type Rule = (typeof RULES)[number];
export const RULE_LABELS: Record<Rule, string> = {
  visaCategory1: 'V cat1',
  visaOver20In30Days: 'V >20/30d',
  mastercardMac0321: 'MC 03/21',
  mastercardMacDelay: 'MC 24-30',
  mastercardOver35In30Days: 'MC >35/30d',
  mastercardOver20DeclinesIn24h: 'MC >20 dec/24h',
};

export interface Violations {
  byRule: Record<Rule, number>;
  /** Strategy attempts that broke at least one rule. */
  attempts: number;
  /** Visa reattempts past 15 in 30 days: within today's rule, beyond the older one (a margin, not a violation). */
  visaOver15In30Days: number;
}

// Visa category 1 (issuer will never approve); 57 joins it on 25 October 2026.
const VISA_CATEGORY_1 = new Set(['04', '07', '12', '14', '15', '41', '43', '46', 'R0', 'R1', 'R3']);
const VISA_57_FROM = Date.parse('2026-10-25T00:00:00Z');
export const VISA_REATTEMPTS_PER_30_DAYS = 20;
export const VISA_OLD_REATTEMPTS_PER_30_DAYS = 15;
export const MC_ATTEMPTS_PER_30_DAYS = 35;
export const MC_DECLINES_PER_24_HOURS = 20;
export const MAC_DO_NOT_RETRY = new Set(['03', '21']);
export const MAC_DELAY_MS: Readonly<Record<string, number>> = { '24': HOUR, '25': 24 * HOUR, '26': 2 * DAY, '27': 4 * DAY, '28': 6 * DAY, '29': 8 * DAY, '30': 10 * DAY };

export const isVisaCategory1 = (code: string, atMs: number) => VISA_CATEGORY_1.has(code) || (code === '57' && atMs >= VISA_57_FROM);

export function emptyViolations(): Violations {
  return { byRule: Object.fromEntries(RULES.map((r) => [r, 0])) as Record<Rule, number>, attempts: 0, visaOver15In30Days: 0 };
}

export function addViolations(into: Violations, v: Violations): void {
  for (const r of RULES) into.byRule[r] += v.byRule[r];
  into.attempts += v.attempts;
  into.visaOver15In30Days += v.visaOver15In30Days;
}

/** The violations of one card's strategy attempts, given every authorization it saw (any order). */
export function checkCard(brand: string, events: readonly CardEvent[]): Violations {
  const out = emptyViolations();
  const sorted = [...events].sort((a, b) => a.atMs - b.atMs || rank(a) - rank(b));
  sorted.forEach((e, i) => {
    if (e.by !== 'strategy') return;
    const before = sorted.slice(0, i);
    const broken = brand === 'visa' ? visa(e, before, out) : brand === 'mastercard' ? mastercard(e, before) : [];
    for (const r of broken) out.byRule[r]++;
    if (broken.length > 0) out.attempts++;
  });
  return out;
}

// At one instant, the original comes before the retries that follow it.
const rank = (e: CardEvent) => (e.by === 'original' ? 0 : e.by === 'merchant' ? 1 : 2);

function visa(e: CardEvent, before: readonly CardEvent[], out: Violations): Rule[] {
  const broken: Rule[] = [];
  if (before.some((p) => p.order === e.order && !p.approved && isVisaCategory1(p.code, p.atMs))) broken.push('visaCategory1');
  const reattempts = before.filter((p) => p.by !== 'original' && p.atMs > e.atMs - 30 * DAY).length + 1;
  if (reattempts > VISA_REATTEMPTS_PER_30_DAYS) broken.push('visaOver20In30Days');
  if (reattempts > VISA_OLD_REATTEMPTS_PER_30_DAYS) out.visaOver15In30Days++;
  return broken;
}

function mastercard(e: CardEvent, before: readonly CardEvent[]): Rule[] {
  const broken: Rule[] = [];
  if (before.some((p) => p.advice && MAC_DO_NOT_RETRY.has(p.advice) && p.atMs > e.atMs - 30 * DAY)) broken.push('mastercardMac0321');
  if (before.some((p) => p.advice && MAC_DELAY_MS[p.advice] !== undefined && e.atMs < p.atMs + MAC_DELAY_MS[p.advice]!)) broken.push('mastercardMacDelay');
  if (before.filter((p) => p.atMs > e.atMs - 30 * DAY).length + 1 > MC_ATTEMPTS_PER_30_DAYS) broken.push('mastercardOver35In30Days');
  if (!e.approved && before.filter((p) => !p.approved && p.atMs > e.atMs - 24 * HOUR).length + 1 > MC_DECLINES_PER_24_HOURS) broken.push('mastercardOver20DeclinesIn24h');
  return broken;
}
