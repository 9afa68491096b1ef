// The schedules rescued is compared with, run against the same issuers and the same merchant
// history in a plain loop (a schedule needs no database), card by card: a card's orders share
// its history, so one order's attempts count in its other orders' windows.
//
// The compliant baselines are what a careful merchant's own retry logic does, from the
// networks' published rules (network-check.ts's constants) and nothing of rescued's: stop on a
// hard or data decline and on Mastercard advice 01/03/04/21, wait out advice 24–30, and keep
// every card under Visa's 20 reattempts in 30 days and Mastercard's 35 attempts in 30 days and
// 20 declines in 24 hours, counting the originals and the merchant's own retries. The naive
// schedules read nothing from the answers and stop only at an approval (reference rows).
import { answer, type CardEvent } from './bank.ts';
import { DAY_MS, HOUR_MS } from './calendar.ts';
import { isVisaCategory1, MAC_DELAY_MS, MAC_DO_NOT_RETRY, MC_ATTEMPTS_PER_30_DAYS, MC_DECLINES_PER_24_HOURS, VISA_REATTEMPTS_PER_30_DAYS } from './network-check.ts';
import type { Order, Population } from './orders.ts';

export interface Baseline {
  name: string;
  /** Hours between tries; at most `tries` of them (Infinity: until the deadline). */
  everyHours: number;
  tries: number;
  compliant: boolean;
}

export const BASELINES: readonly Baseline[] = [
  { name: 'daily, code-aware, within the caps', everyHours: 24, tries: Infinity, compliant: true },
  { name: '8 tries in 2 weeks, code-aware, within the caps', everyHours: 42, tries: 8, compliant: true },
  { name: 'daily, naive (reference)', everyHours: 24, tries: Infinity, compliant: false },
  { name: '8 tries in 2 weeks, naive (reference)', everyHours: 42, tries: 8, compliant: false },
];

/** A strategy's attempts per order (index), oldest first. */
export type Attempts = Map<number, CardEvent[]>;

export function runBaseline(pop: Population, b: Baseline): Attempts {
  const out: Attempts = new Map(pop.orders.map((o) => [o.index, []]));
  const byCard = new Map<Order['card'], Order[]>();
  for (const o of pop.orders) byCard.set(o.card, [...(byCard.get(o.card) ?? []), o]);
  for (const [card, orders] of byCard) {
    const events = [...pop.history.get(card)!];
    const open = new Set(orders);
    for (;;) {
      let best: { order: Order; atMs: number } | undefined;
      for (const o of open) {
        const atMs = nextTry(b, o, out.get(o.index)!, events);
        if (atMs === undefined) open.delete(o);
        else if (!best || atMs < best.atMs) best = { order: o, atMs };
      }
      if (!best) break;
      const { order, atMs } = best;
      const a = answer(pop.world, card, order.index, order.amount, atMs, events);
      const e: CardEvent = { atMs, ...a, amount: order.amount, order: order.index, by: 'strategy' };
      events.push(e);
      out.get(order.index)!.push(e);
      if (a.approved) open.delete(order);
    }
  }
  return out;
}

/** When the order's next try goes, or undefined when it is over. */
function nextTry(b: Baseline, o: Order, mine: readonly CardEvent[], card: readonly CardEvent[]): number | undefined {
  if (mine.length >= b.tries) return undefined;
  const everyMs = b.everyHours * HOUR_MS;
  let atMs = Math.max(o.handoverAtMs + (mine.length + 1) * everyMs, (mine.at(-1)?.atMs ?? -Infinity) + everyMs);
  if (b.compliant) {
    if (isFinal(o, card)) return undefined;
    // Each rule can only push the try later (and a later time brings later events into its
    // windows): push until every rule allows it, or it passes the deadline.
    for (let next = earliestAllowed(o, card, atMs); next !== atMs && atMs < o.expiryMs; next = earliestAllowed(o, card, atMs)) atMs = next;
  }
  return atMs < o.expiryMs ? atMs : undefined;
}

// Codes no retry can fix for a rebill: Visa category 1 and the data codes (category 3, and the
// usual "expired", "CVV" and "authenticate" codes): without the payer nothing changes.
const DATA_CODES = new Set(['54', '55', '82', 'N7', '1A']);
// Mastercard "new account information" and "token requirements": the card on file will not do.
// (03 and 21 hold the whole card for 30 days: earliestAllowed.)
const MAC_FINAL = new Set(['01', '04']);

function isFinal(o: Order, card: readonly CardEvent[]): boolean {
  return card.some((e) => e.order === o.index && !e.approved && (isVisaCategory1(e.code, e.atMs) || DATA_CODES.has(e.code) || (e.advice !== undefined && MAC_FINAL.has(e.advice))));
}

/** The earliest moment at or after `atMs` the card's history allows a try. */
function earliestAllowed(o: Order, card: readonly CardEvent[], atMs: number): number {
  // An attempt at this very instant (another order of the card) counts as before this one.
  const past = card.filter((e) => e.atMs <= atMs);
  let t = atMs;
  for (const e of past) {
    if (e.advice && MAC_DO_NOT_RETRY.has(e.advice)) t = Math.max(t, e.atMs + 30 * DAY_MS + 60_000);
    const delay = e.advice ? MAC_DELAY_MS[e.advice] : undefined;
    if (delay !== undefined) t = Math.max(t, e.atMs + delay + 60_000);
  }
  const brand = o.card.brand;
  if (brand === 'visa') t = Math.max(t, capFreeAt(past.filter((e) => e.by !== 'original'), VISA_REATTEMPTS_PER_30_DAYS, 30 * DAY_MS, atMs));
  if (brand === 'mastercard') {
    t = Math.max(t, capFreeAt(past, MC_ATTEMPTS_PER_30_DAYS, 30 * DAY_MS, atMs));
    t = Math.max(t, capFreeAt(past.filter((e) => !e.approved), MC_DECLINES_PER_24_HOURS, 24 * HOUR_MS, atMs));
  }
  return t;
}

/** The earliest t ≥ nowMs at which fewer than `cap` of the events fall in (t − window, t]. */
function capFreeAt(events: readonly CardEvent[], cap: number, windowMs: number, nowMs: number): number {
  const recent = events.map((e) => e.atMs).filter((t) => t > nowMs - windowMs).sort((a, b) => b - a);
  return recent.length < cap ? nowMs : recent[cap - 1]! + windowMs + 60_000;
}
