// The simulated issuer of a card: the answer to one authorization as a pure function of the
// card's hidden state (cards.ts), the time, the amount, everything the card saw before at this
// merchant (originals, the merchant's own retries, every strategy's attempts on any of its
// orders) and one seeded draw keyed by the order and the minute. It answers only what a
// processor passes on: approved or not, an ISO 8583 code, a Mastercard advice code.
import { DAY_MS, HOUR_MS } from './calendar.ts';
import type { Card } from './cards.ts';
import { uniform } from './random.ts';
import type { World } from './world.ts';

/** One authorization on a card at the merchant, as the networks see it. */
export interface CardEvent {
  atMs: number;
  approved: boolean;
  code: string;
  advice?: string;
  amount: number;
  /** The order (index within the seed) it belongs to. */
  order: number;
  /** original: the merchant's first charge of the order; merchant: its own retry before the hand-over; strategy: after it. */
  by: 'original' | 'merchant' | 'strategy';
}

export interface Answer {
  approved: boolean;
  code: string;
  advice?: string;
}

// Mastercard's "retry after" advice codes and their delays (shared/reference/card-networks.md).
const ADVICE_DELAY_MS: Readonly<Record<string, number>> = {
  '24': HOUR_MS, '25': DAY_MS, '26': 2 * DAY_MS, '27': 4 * DAY_MS, '28': 6 * DAY_MS, '29': 8 * DAY_MS, '30': 10 * DAY_MS,
};

/**
 * The issuer's answer to charging `amount` on `card` for `order` at `atMs`. `history` is the
 * card's events in the order they happened (one at this very instant came before); later
 * ones (the merchant's future charges) are ignored.
 */
export function answer(world: World, card: Card, order: number, amount: number, atMs: number, history: readonly CardEvent[]): Answer {
  const past = history.filter((e) => e.atMs <= atMs);
  const refused = refusal(world, card, atMs, past);
  if (refused) return refused;
  const b = card.behaviour;
  if (b.kind === 'approve') return { approved: true, code: '00' };
  if (b.kind === 'funds') {
    const m = b.money.find((w) => atMs >= w.fromMs && atMs < w.toMs);
    const spent = m ? past.filter((e) => e.approved && e.atMs >= m.fromMs).reduce((s, e) => s + e.amount, 0) : 0;
    return m && m.surplusCents - spent >= amount ? { approved: true, code: '00' } : softDecline(world, card, atMs, past);
  }
  if (b.kind === 'hold') {
    // A small constant chance before the hold lifts, a high one after; smaller for a larger amount.
    const base = atMs >= b.liftsAtMs ? world.hold.approveAfter : world.hold.chanceBefore;
    const chance = base * Math.min(1, (world.price.medianCents / amount) ** world.hold.amountElasticity);
    if (uniform(world.seed, 'attempt', order, Math.floor(atMs / 60_000)) < chance) return { approved: true, code: '00' };
  }
  return softDecline(world, card, atMs, past);
}

/** The issuer's decline at `atMs` whatever the account holds: the original decline of an order. */
export function declineOf(world: World, card: Card, atMs: number, history: readonly CardEvent[]): Answer {
  const past = history.filter((e) => e.atMs <= atMs);
  return refusal(world, card, atMs, past) ?? softDecline(world, card, atMs, past);
}

/** Answers that do not depend on the account: replaced card, hard decline, velocity block, advised delay, outage. */
function refusal(world: World, card: Card, atMs: number, past: readonly CardEvent[]): Answer | undefined {
  const mc = card.brand === 'mastercard';
  if (atMs >= card.replacedAtMs) return mc ? { approved: false, code: card.replacedCode, advice: '01' } : { approved: false, code: card.replacedCode };
  const b = card.behaviour;
  if (b.kind === 'never') return mc && b.advice ? { approved: false, code: b.code, advice: b.advice } : { approved: false, code: b.code };
  if (declinesIn30Days(past, atMs) >= card.velocityLimit) return mc ? { approved: false, code: '05', advice: '03' } : { approved: false, code: '05' };
  const waiting = mc ? pendingAdvice(past, atMs) : undefined;
  if (waiting) return { approved: false, code: shortCode(card), advice: waiting };
  if (atMs < card.outageUntilMs) return { approved: false, code: card.outageCode };
  return undefined;
}

function shortCode(card: Card): string {
  const b = card.behaviour;
  return b.kind === 'funds' || b.kind === 'hold' ? b.shortCode : '05';
}

/** The reason's code, escalated after repeated declines (51 → 05/59; Mastercard 02 → 03). */
function softDecline(world: World, card: Card, atMs: number, past: readonly CardEvent[]): Answer {
  const declines = declinesIn30Days(past, atMs);
  const code = declines >= world.escalation.after && card.behaviour.kind === 'funds' ? world.escalation.code : shortCode(card);
  if (card.brand !== 'mastercard' || card.advice === 'none') return { approved: false, code };
  const advice = card.advice === '02' && declines >= world.escalation.macAfter ? '03' : card.advice;
  return { approved: false, code, advice };
}

function declinesIn30Days(past: readonly CardEvent[], atMs: number): number {
  let n = 0;
  for (const e of past) if (!e.approved && e.atMs > atMs - 30 * DAY_MS) n++;
  return n;
}

/** A "retry after" advice whose delay has not run out at `atMs`. */
function pendingAdvice(past: readonly CardEvent[], atMs: number): string | undefined {
  for (const e of past) {
    const delay = e.advice ? ADVICE_DELAY_MS[e.advice] : undefined;
    if (delay !== undefined && atMs < e.atMs + delay) return e.advice;
  }
  return undefined;
}
