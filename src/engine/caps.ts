// Per-card limits over rolling windows (shared/reference/card-networks.md): the earliest
// moment a new attempt keeps the card within every cap, and the card-level stops. Counters are
// per card and merchant, across all of the card's orders, not per order (DESIGN.md §3).
import type { Brand } from '../declines/brands.ts';
import { mastercardRulesApply, visaRulesApply } from '../declines/brands.ts';
import { normaliseAdviceCode } from '../declines/mastercard.ts';
import { isVisaCategory1 } from '../declines/visa.ts';
import type { AttemptRecord, StopReason } from './plan-types.ts';
import { limitInForce, type Rules } from './rules.ts';
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

/** Who makes the attempt being planned: the engine's retries are all merchant-initiated. */
export type Initiator = 'CIT' | 'MIT';

/**
 * The records each network counts for a new attempt by `initiator`, with the limits in force
 * at `nowMs` (rules.ts dated tables):
 *  - Visa: reattempts only (not each order's first authorization), per credential, and, under
 *    the 2026 rule, only those of the same initiator (CIT and MIT have separate counters);
 *  - Mastercard: every authorization, and its declines over 24 hours;
 *  - other brands: reattempts, as Visa's older rule counts them.
 */
function counted(brand: Brand, cardAttempts: readonly AttemptRecord[], rules: Rules, nowMs: number, initiator: Initiator) {
  const visa = limitInForce(rules.visa.reattemptLimits, nowMs);
  const mastercard = limitInForce(rules.mastercard.attemptLimits, nowMs);
  const reattempts = cardAttempts.filter((a) => !a.initial);
  return {
    visa: visaRulesApply(brand)
      ? { cap: visa.maxPer30Days, records: visa.separateCitMit ? reattempts.filter((a) => (a.initiator ?? 'MIT') === initiator) : reattempts }
      : undefined,
    mastercard: mastercardRulesApply(brand) ? { cap: mastercard.maxAttemptsPer30Days, records: cardAttempts, declineCap: mastercard.maxDeclinesPer24Hours } : undefined,
    other: !visaRulesApply(brand) && !mastercardRulesApply(brand) ? { cap: rules.otherBrands.maxAttemptsPer30Days, records: reattempts } : undefined,
  };
}

const timesOf = (records: readonly AttemptRecord[]) => records.map((a) => a.at.getTime());

/** Lower bounds on the next attempt from every cap that applies to the brand. */
export function capBounds(brand: Brand, cardAttempts: readonly AttemptRecord[], rules: Rules, nowMs: number, initiator: Initiator = 'MIT'): Bound[] {
  const c = counted(brand, cardAttempts, rules, nowMs, initiator);
  const bounds: Bound[] = [];
  const add = (atMs: number, stop: StopReason) => {
    if (atMs > -Infinity) bounds.push({ atMs, stop });
  };
  if (c.visa) add(capFreeAt(timesOf(c.visa.records), c.visa.cap, WINDOW_30_DAYS_MS, nowMs), 'visa_reattempt_cap');
  if (c.mastercard) {
    add(capFreeAt(timesOf(c.mastercard.records), c.mastercard.cap, WINDOW_30_DAYS_MS, nowMs), 'mastercard_attempt_cap');
    const declines = timesOf(c.mastercard.records.filter((a) => !a.approved));
    add(capFreeAt(declines, c.mastercard.declineCap, 24 * HOUR_MS, nowMs), 'mastercard_decline_cap_24h');
  }
  if (c.other) add(capFreeAt(timesOf(c.other.records), c.other.cap, WINDOW_30_DAYS_MS, nowMs), 'brand_attempt_cap');
  if (mastercardRulesApply(brand)) add(cardAdviceDelayEnd(cardAttempts, rules), 'expiry_reached');
  return bounds;
}

/**
 * A Mastercard "retry after" advice (MAC 24–30) read for the card, not just the order that
 * received it: the issuer told the merchant when this card may be tried again, so no order of
 * the card is attempted before the delay runs out. An approval after the advice lifts it.
 * Reading it per order let a second order of the card be tried inside another's delay.
 */
export function cardAdviceDelayEnd(cardAttempts: readonly AttemptRecord[], rules: Rules): number {
  const lifted = lastApprovalMs(cardAttempts);
  let end = -Infinity;
  for (const a of cardAttempts) {
    if (a.approved || !a.adviceCode || a.at.getTime() <= lifted) continue;
    const delay = rules.mastercard.adviceDelaysMs[normaliseAdviceCode(a.adviceCode) ?? ''];
    if (delay !== undefined) end = Math.max(end, a.at.getTime() + delay + EDGE_SLACK_MS);
  }
  return end;
}

/** How many more attempts the card's 30-day caps allow from now (declines per 24 h aside). */
export function attemptsLeftUnderCaps(brand: Brand, cardAttempts: readonly AttemptRecord[], rules: Rules, nowMs: number, initiator: Initiator = 'MIT'): number {
  const inWindow = (records: readonly AttemptRecord[]) => records.filter((a) => a.at.getTime() > nowMs - WINDOW_30_DAYS_MS).length;
  let left = Infinity;
  for (const count of Object.values(counted(brand, cardAttempts, rules, nowMs, initiator))) {
    if (count) left = Math.min(left, count.cap - inWindow(count.records));
  }
  return Math.max(0, left);
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
      if (raw && isVisaCategory1(raw, a.at)) return { reason: 'visa_category_1', detail: `card declined ${raw} ${whose(a)}` };
    }
    const mac = a.adviceCode && mastercardRulesApply(brand) ? normaliseAdviceCode(a.adviceCode) : undefined;
    if (mac && rules.mastercard.cardBlockingAdvice.includes(mac)) {
      return { reason: 'mastercard_advice_do_not_retry', detail: `card received MAC ${mac} ${whose(a)}` };
    }
  }
  return undefined;
}

/** Where a card-level stop came from, in the order's stop reason. */
function whose(a: AttemptRecord): string {
  if (a.origin === 'prior') return `on the merchant's earlier attempt of ${a.at.toISOString()}`;
  if (a.origin === 'original') return `on an original decline of ${a.at.toISOString()}`;
  return 'earlier';
}

function lastApprovalMs(attempts: readonly AttemptRecord[]): number {
  let last = -Infinity;
  for (const a of attempts) if (a.approved) last = Math.max(last, a.at.getTime());
  return last;
}
