// Per-card limits over rolling windows (shared/reference/card-networks.md): the earliest
// moment a new attempt keeps the card within every cap, and the card-level stops. Counters are
// per card and merchant, across all of the card's orders, not per order (DESIGN.md §3).
import type { Brand } from '../declines/brands.ts';
import { mastercardRulesApply, visaRulesApply } from '../declines/brands.ts';
import { normaliseAdviceCode } from '../declines/mastercard.ts';
import { isVisaCategory1 } from '../declines/visa.ts';
import type { AttemptRecord, StopReason } from './plan-types.ts';
import type { Rules } from './rules.ts';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../calendar.ts';

const WINDOW_30_DAYS_MS = 30 * DAY_MS;
// Networks do not say whether a window's edge is inside it; a minute past it is outside either way.
const EDGE_SLACK_MS = MINUTE_MS;

export interface Bound {
  atMs: number;
  /** Why we stop if this bound lands at or past the deadline. */
  stop: StopReason;
}

/**
 * The earliest t at which fewer than `cap` of `timesMs` fall in the window (t − window, t]:
 * t ≥ (the cap-th most recent time) + window. -Infinity when the cap is not reached.
 */
export function capFreeAt(timesMs: number[], cap: number, windowMs: number, nowMs: number): number {
  const recent = timesMs.filter((t) => t > nowMs - windowMs - EDGE_SLACK_MS);
  if (recent.length < cap) return -Infinity;
  if (cap <= 0) return Infinity;
  recent.sort((a, b) => b - a);
  return (recent[cap - 1] as number) + windowMs + EDGE_SLACK_MS;
}

/** Lower bounds on the next attempt from every cap that applies to the brand. */
export function capBounds(brand: Brand, cardAttempts: readonly AttemptRecord[], rules: Rules, nowMs: number): Bound[] {
  const all = cardAttempts.map((a) => a.at.getTime());
  const bounds: Bound[] = [];
  const add = (atMs: number, stop: StopReason) => {
    if (atMs > -Infinity) bounds.push({ atMs, stop });
  };
  if (visaRulesApply(brand)) {
    add(capFreeAt(all, rules.visa.maxReattemptsPer30Days, WINDOW_30_DAYS_MS, nowMs), 'visa_reattempt_cap');
  }
  if (mastercardRulesApply(brand)) {
    add(capFreeAt(all, rules.mastercard.maxAttemptsPer30Days, WINDOW_30_DAYS_MS, nowMs), 'mastercard_attempt_cap');
    const declines = cardAttempts.filter((a) => !a.approved).map((a) => a.at.getTime());
    add(capFreeAt(declines, rules.mastercard.maxDeclinesPer24Hours, 24 * HOUR_MS, nowMs), 'mastercard_decline_cap_24h');
  }
  if (!visaRulesApply(brand) && !mastercardRulesApply(brand)) {
    add(capFreeAt(all, rules.otherBrands.maxAttemptsPer30Days, WINDOW_30_DAYS_MS, nowMs), 'brand_attempt_cap');
  }
  return bounds;
}

/** How many more attempts the card's 30-day caps allow from now (declines per 24 h aside). */
export function attemptsLeftUnderCaps(brand: Brand, cardAttempts: readonly AttemptRecord[], rules: Rules, nowMs: number): number {
  const recent = cardAttempts.filter((a) => a.at.getTime() > nowMs - WINDOW_30_DAYS_MS).length;
  let cap = Infinity;
  if (visaRulesApply(brand)) cap = Math.min(cap, rules.visa.maxReattemptsPer30Days);
  if (mastercardRulesApply(brand)) cap = Math.min(cap, rules.mastercard.maxAttemptsPer30Days);
  if (!visaRulesApply(brand) && !mastercardRulesApply(brand)) cap = Math.min(cap, rules.otherBrands.maxAttemptsPer30Days);
  return Math.max(0, cap - recent);
}

/**
 * A stop that another order of the same card earned within 30 days: a Visa category 1 code
 * (the issuer will never approve this credential) or a Mastercard MAC that speaks for the card
 * (03, 21). An approval after it shows the card works again and lifts it.
 */
export function cardLevelStop(brand: Brand, cardAttempts: readonly AttemptRecord[], rules: Rules, nowMs: number): { reason: StopReason; detail: string } | undefined {
  const since = Math.max(nowMs - WINDOW_30_DAYS_MS, lastApprovalMs(cardAttempts));
  for (const a of cardAttempts) {
    const t = a.at.getTime();
    if (a.approved || t <= since) continue;
    if (visaRulesApply(brand) && rules.visa.category1 !== 'capped') {
      const raw = a.networkCode ?? a.responseCode;
      if (raw && isVisaCategory1(raw, a.at)) return { reason: 'visa_category_1', detail: `card declined ${raw} earlier` };
    }
    const mac = a.adviceCode && mastercardRulesApply(brand) ? normaliseAdviceCode(a.adviceCode) : undefined;
    if (mac && rules.mastercard.cardBlockingAdvice.includes(mac)) {
      return { reason: 'mastercard_advice_do_not_retry', detail: `card received MAC ${mac} earlier` };
    }
  }
  return undefined;
}

function lastApprovalMs(attempts: readonly AttemptRecord[]): number {
  let last = -Infinity;
  for (const a of attempts) if (a.approved) last = Math.max(last, a.at.getTime());
  return last;
}
