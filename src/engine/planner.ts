// The retry planner: a pure function from an MIT order, its latest decline, the attempt
// histories, the merchant model and the network rules to the next attempt time, or a stop
// with its reason. No clock, no randomness, no I/O: the same input always gives the same plan,
// so a re-plan after a crash cannot drift (DESIGN.md §3).
import type { Brand } from '../declines/brands.ts';
import { mastercardRulesApply, normaliseBrand, visaRulesApply } from '../declines/brands.ts';
import type { Bound, Initiator } from './caps.ts';
import { attemptsLeftUnderCaps, capBounds, cardLevelStop } from './caps.ts';
import type { Classification } from '../declines/classify.ts';
import type { Plan, PlanInput, RetryReason } from './plan-types.ts';
import type { SoftKind } from '../declines/reasons.ts';
import type { Rules } from './rules.ts';
import { defaultRules } from './rules.ts';
import { MINUTE_MS, hash32, utcOffsetMs } from '../calendar.ts';
import type { TimingContext } from './timing.ts';
import { withLearning } from './learning/apply.ts';
import { dailySlot, genericGapMs, genericPaydaySlot, lastMorningBefore, minGapMs, paydayMorning, usableModel } from './timing.ts';

export function plan(input: PlanInput): Plan {
  const rules = input.rules ?? defaultRules;
  const brand = normaliseBrand(input.order.cardBrand);
  return immediateStop(input, rules, brand) ?? schedule(input, rules, brand);
}

/** Everything that ends the order whatever the clock says, in order of precedence. */
function immediateStop(input: PlanInput, rules: Rules, brand: Brand): Plan | undefined {
  const { order, decline, attempts } = input;
  const nowMs = input.now.getTime();
  if (attempts.some((a) => a.approved)) return stop('already_approved');
  if (decline.visaCategory === 1 && visaRulesApply(brand) && rules.visa.category1 !== 'capped') {
    return stop('visa_category_1', `code ${decline.networkCode ?? decline.code ?? '?'}`);
  }
  const mac = decline.advice?.network === 'mastercard' ? decline.advice.code : undefined;
  if (mac && mastercardRulesApply(brand) && rules.mastercard.stopAdvice.includes(mac)) {
    // Before any attempt of ours the decline is the merchant's original one: said so, since
    // the merchant sent the code (transaction.merchantAdviceCode).
    return stop('mastercard_advice_do_not_retry', attempts.length === 0 ? `MAC ${mac} on the original decline` : `MAC ${mac}`);
  }
  if (decline.class === 'hard') return stop('hard_decline', decline.reason);
  if (decline.class === 'data') return dataStop(decline, order.isMIT);
  // The decline's own verdict comes first: an order that can never be rescued says why.
  if (nowMs >= deadlineMs(order.expiryDateUtc, rules)) return stop('expiry_reached');
  // The card's other declines: other orders', the originals and the merchant's earlier tries
  // (a MAC 03 or 21 among this order's own earlier tries ends it here).
  const cardStop = cardLevelStop(brand, input.cardAttempts, rules, nowMs);
  if (cardStop) return stop(cardStop.reason, cardStop.detail);
  if (attempts.length >= rules.maxAttemptsPerOrder) return stop('order_attempt_cap', `${attempts.length} attempts`);
  return undefined;
}

/** No customer is present for an MIT: authentication, expiry and CVV cannot be fixed by a retry. */
function dataStop(decline: Classification, isMIT: boolean): Plan {
  if (!isMIT) return stop('customer_action_required', decline.reason);
  if (decline.reason === 'authentication_required') return stop('authentication_required_mit');
  return stop('card_data_required_mit', decline.reason);
}

function schedule(input: PlanInput, rules: Rules, brand: Brand): Plan {
  const { order, decline, attempts } = input;
  const timing = rules.timing;
  const nowMs = input.now.getTime();
  const deadline = deadlineMs(order.expiryDateUtc, rules);
  const anchor = anchorMs(input);
  const kind: SoftKind = decline.softKind ?? 'generic';

  const bounds: Bound[] = [
    { atMs: nowMs + timing.minLeadMs, stop: 'expiry_reached' },
    { atMs: anchor + minGapMs(kind, attempts.length, timing), stop: 'expiry_reached' },
    { atMs: declineMs(input) + adviceDelayMs(decline, rules, brand), stop: 'expiry_reached' },
    ...capBounds(brand, input.cardAttempts, rules, nowMs, initiatorOf(input)),
  ];
  let earliest = -Infinity;
  for (const b of bounds) earliest = Math.max(earliest, b.atMs);
  if (earliest >= deadline) {
    const cap = bounds.find((b) => b.stop !== 'expiry_reached' && b.atMs >= deadline);
    return stop(cap?.stop ?? 'expiry_reached');
  }

  const ctx: TimingContext = {
    timing,
    offsetMs: utcOffsetMs(order.timezoneUtcOffset),
    spreadMs: spreadFor(order.id, timing.spreadMs),
    model: usableModel(input.model),
  };
  // Generic retries share the time left evenly among the attempts the order and the card may still make.
  const left = Math.min(rules.maxAttemptsPerOrder - attempts.length, attemptsLeftUnderCaps(brand, input.cardAttempts, rules, nowMs, initiatorOf(input)));
  const gap = genericGapMs(attempts.length, timing, deadline - anchor, left);
  const planned = choose(kind, earliest, deadline, gap, anchor, ctx);
  return withLearning(planned, input, kind, { earliestMs: earliest, deadlineMs: deadline, offsetMs: ctx.offsetMs, brand });
}

function choose(kind: SoftKind, earliest: number, deadline: number, genericGap: number, anchor: number, ctx: TimingContext): Plan {
  if (kind === 'temporary') return retry(earliest, 'temporary_backoff');
  if (kind === 'funds') {
    const payday = paydayMorning(earliest, ctx);
    if (payday !== undefined && payday < deadline) return retry(payday, 'payday_morning');
    const morning = lastMorningBefore(earliest, deadline, ctx);
    return retry(morning < deadline ? morning : lastChance(earliest, deadline, ctx), 'last_chance_before_expiry');
  }
  const daily = dailySlot(earliest, anchor, genericGap, ctx);
  const payday = genericPaydaySlot(earliest, daily, genericGap, ctx);
  if (payday !== undefined && payday < deadline) return retry(payday, 'payday_morning');
  if (daily < deadline) return retry(daily, 'daily_spacing');
  // The deadline comes before the next gap: one last try as late as is safe.
  return retry(lastChance(earliest, deadline, ctx), 'last_chance_before_expiry');
}

/**
 * A last try just before the deadline, not at it: the claim sends an attempt only while it is
 * due strictly before the deadline, so a try planned at the deadline itself was dropped and
 * the order expired one attempt short (found by the rescue-quality simulation).
 */
function lastChance(earliest: number, deadline: number, ctx: TimingContext): number {
  return Math.max(earliest, deadline - ctx.timing.minLeadMs);
}

/**
 * The last moment an attempt may be planned for: expiryDateUtc less the margin that claiming
 * and queueing need. Nothing is ever planned at or after it.
 */
function deadlineMs(expiry: Date, rules: Rules): number {
  return expiry.getTime() - rules.timing.expiryMarginMs;
}

/** Gaps run from the latest decline: our last attempt, else the order's arrival. */
function anchorMs(input: PlanInput): number {
  let anchor = input.order.createdAt.getTime();
  for (const a of input.attempts) anchor = Math.max(anchor, a.at.getTime());
  return anchor;
}

/**
 * An advice delay (MAC 24–30) runs from the decline that carried it: our last attempt, else
 * the original decline at its own time (transaction.timestampUtc), not when it reached us.
 */
function declineMs(input: PlanInput): number {
  const last = input.attempts.at(-1);
  if (last) return anchorMs(input);
  return (input.order.declinedAt ?? input.order.createdAt).getTime();
}

const initiatorOf = (input: PlanInput): Initiator => (input.order.isMIT ? 'MIT' : 'CIT');

function adviceDelayMs(decline: Classification, rules: Rules, brand: Brand): number {
  const advice = decline.advice;
  if (advice?.action !== 'retry_after') return 0;
  if (advice.network === 'mastercard') {
    if (!mastercardRulesApply(brand)) return 0;
    return rules.mastercard.adviceDelaysMs[advice.code] ?? advice.delayMs ?? 0;
  }
  return advice.delayMs ?? 0;
}

/** Whole minutes in [0, spreadMs) from the order id: the same order always lands alike. */
function spreadFor(id: string | undefined, spreadMs: number): number {
  const minutes = Math.floor(spreadMs / MINUTE_MS);
  return id && minutes > 0 ? (hash32(id) % minutes) * MINUTE_MS : 0;
}

function retry(atMs: number, reason: RetryReason): Plan {
  return { action: 'retry', at: new Date(atMs), reason };
}

function stop(reason: Extract<Plan, { action: 'stop' }>['reason'], detail?: string): Plan {
  return detail === undefined ? { action: 'stop', reason } : { action: 'stop', reason, detail };
}

/**
 * For the attempt runner, right before an attempt starts: whether the card's caps still allow
 * one now. Plans are made per order, so two orders of one card may plan the same free slot;
 * the second to be claimed finds the cap reached here and is re-planned instead of sent.
 */
export function capsAllowAttempt(input: { cardBrand?: string | null; cardAttempts: PlanInput['cardAttempts']; rules?: Rules; now: Date; initiator?: Initiator }): boolean {
  const rules = input.rules ?? defaultRules;
  const nowMs = input.now.getTime();
  return capBounds(normaliseBrand(input.cardBrand), input.cardAttempts, rules, nowMs, input.initiator).every((b) => b.atMs <= nowMs);
}
