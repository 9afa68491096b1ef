// The hidden state of every simulated card, drawn from its world (world.ts) and the seed: its
// brand, the payer's time zone and pay calendar, when money is there and how much, when a
// generic hold lifts, the issuer's velocity limit and whether the card is replaced. A card has
// one to three declined orders at the merchant. Nothing here reaches the engine: it gets only
// what a merchant sends (codes, advice, brand, amount, time zone, deadline, its own retries).
import { DAY_MS, HOUR_MS, localDayOf, weekdayOfDay } from './calendar.ts';
import { exponential, logNormal, pickItem, pickShare, uniform } from './random.ts';
import type { AdviceKey, Brand, MonthDay, Reason, World } from './world.ts';

/** Money for the charge between fromMs and toMs, `surplusCents` of it free (approvals spend it). */
export interface Money {
  fromMs: number;
  toMs: number;
  surplusCents: number;
}

export type Behaviour =
  | { kind: 'never'; code: string; advice?: string }
  | { kind: 'approve' }
  | { kind: 'funds'; shortCode: string; money: Money[] }
  | { kind: 'hold'; shortCode: string; liftsAtMs: number };

export interface Card {
  seed: number;
  index: number;
  brand: Brand;
  offsetHours: number;
  /** The offset the merchant sends (0 when it does not know the payer's zone). */
  reportedOffsetHours: number;
  priceCents: number;
  reason: Reason;
  behaviour: Behaviour;
  outageUntilMs: number;
  outageCode: string;
  /** The Mastercard advice this issuer adds to its soft declines. */
  advice: AdviceKey;
  velocityLimit: number;
  /** From then on the card is replaced and declines with `replacedCode` (Infinity: never). */
  replacedAtMs: number;
  replacedCode: string;
  /** The original declines of the card's orders, before any hand-over. */
  declinesAtMs: number[];
}

// ISO 8583 codes and Mastercard advice per reason (shared/reference/card-networks.md).
const HARD: Record<string, (b: Brand) => { code: string; advice?: string }> = {
  expired: () => ({ code: '54', advice: '01' }),
  lost_or_stolen: () => ({ code: '43', advice: '03' }),
  closed: () => ({ code: '46', advice: '03' }),
  invalid_number: () => ({ code: '14', advice: '03' }),
  fraud: () => ({ code: '59', advice: '03' }),
  stop_recurring: (b) => (b === 'visa' ? { code: 'R1' } : { code: '05', advice: '21' }),
};

export function drawCard(world: World, index: number): Card {
  const u = (...key: (string | number)[]) => uniform(world.seed, 'card', index, ...key);
  const brand = pickShare(world.brands, u('brand'));
  const offsetHours = Math.max(-12, Math.min(14, world.zone.centre + Math.round((u('zone') * 2 - 1) * world.zone.spread)));
  const priceCents = Math.max(100, Math.round(logNormal(world.price.medianCents, world.price.sigma, u('price-1'), u('price-2'))));
  const reason = pickShare(world.reasons, u('reason'));
  const firstMs = world.startMs + Math.floor(u('arrival') * world.arrivalDays * 1440) * 60_000;
  const count = u('multi') < world.orders.multiShare ? (u('multi-n') < 0.6 ? 2 : 3) : 1;
  const declinesAtMs = Array.from({ length: count }, (_, k) => firstMs + Math.round(k * world.orders.gapDays * DAY_MS * (0.8 + 0.4 * u('gap', k))));
  const endMs = declinesAtMs[count - 1]! + world.windowDays * DAY_MS;
  const base = { offsetHours, priceCents, firstMs, endMs, declinesAtMs };
  const outageCode = u('outage-code') < 0.5 ? '91' : '96';
  let behaviour: Behaviour;
  let outageUntilMs = firstMs;
  if (reason === 'funds' || reason === 'limit') behaviour = funds(world, index, base, reason === 'funds' ? '51' : '61');
  else if (reason === 'generic') behaviour = u('generic-funds') < world.genericIsFunds ? funds(world, index, base, '05') : hold(world, index, firstMs, '05');
  else if (reason === 'outage') {
    outageUntilMs = firstMs + Math.round(logNormal(world.outage.medianMinutes, 1.2, u('outage-1'), u('outage-2'))) * 60_000;
    const then = pickShare(world.outage.then, u('outage-then'));
    behaviour = then === 'approve' ? { kind: 'approve' } : then === 'funds' ? funds(world, index, base, '51') : hold(world, index, firstMs, '05');
  } else behaviour = { kind: 'never', ...HARD[reason]!(brand) };
  const replaced = u('replaced') < world.replacedShare;
  return {
    seed: world.seed, index, brand, offsetHours, priceCents, reason, behaviour, outageUntilMs, outageCode, declinesAtMs,
    reportedOffsetHours: u('zone-known') < world.zone.known ? offsetHours : 0,
    advice: brand === 'mastercard' ? pickShare(world.advice.soft, u('advice')) : 'none',
    velocityLimit: u('velocity') < world.velocity.share ? world.velocity.min + Math.floor(u('velocity-limit') * (world.velocity.max - world.velocity.min + 1)) : Infinity,
    replacedAtMs: replaced ? firstMs + u('replaced-at') * (endMs - firstMs) : Infinity,
    replacedCode: u('replaced-code') < 0.5 ? '14' : '54',
  };
}

interface Base {
  offsetHours: number;
  priceCents: number;
  firstMs: number;
  endMs: number;
  declinesAtMs: number[];
}

/** Paydays and stray inflows from the first decline to the last deadline; none holds an original decline (each was declined). */
function funds(world: World, index: number, card: Base, shortCode: string): Behaviour {
  const w = world.funds;
  const u = (...key: (string | number)[]) => uniform(world.seed, 'card', index, 'funds', ...key);
  if (u('never') < w.neverRecover) return { kind: 'funds', shortCode, money: [] };
  const offsetMs = card.offsetHours * HOUR_MS;
  const depositHour = (world.deposit.fromHour + u('deposit') * world.deposit.widthHours) % 24;
  const money: Money[] = [];
  const add = (fromMs: number, key: string | number) => {
    if (fromMs <= card.firstMs || fromMs >= card.endMs || u('covers', key) >= w.paydayCovers) return;
    const toMs = fromMs + exponential(w.lastsMeanHours, u('lasts', key)) * HOUR_MS;
    if (card.declinesAtMs.some((t) => t >= fromMs && t < toMs)) return;
    money.push({ fromMs, toMs, surplusCents: Math.round(card.priceCents * logNormal(w.surplusMedian, w.surplusSigma, u('surplus-1', key), u('surplus-2', key))) });
  };
  const firstDay = localDayOf(card.firstMs, offsetMs);
  const lastDay = localDayOf(card.endMs, offsetMs);
  for (const day of paydays(world, u, firstDay - 1, lastDay)) add(day * DAY_MS + depositHour * HOUR_MS - offsetMs, day);
  for (let day = firstDay; day <= lastDay; day++) {
    if (u('stray', day) < w.strayPer30Days / 30) add(day * DAY_MS + u('stray-at', day) * DAY_MS - offsetMs, `stray-${day}`);
  }
  money.sort((a, b) => a.fromMs - b.fromMs);
  return { kind: 'funds', shortCode, money };
}

function hold(world: World, index: number, firstMs: number, shortCode: string): Behaviour {
  const u = (key: string) => uniform(world.seed, 'card', index, 'hold', key);
  const liftsAtMs = u('recoverable') < world.hold.recoverable ? firstMs + exponential(world.hold.meanDays, u('lifts')) * DAY_MS : Infinity;
  return { kind: 'hold', shortCode, liftsAtMs };
}

/** The payer's paydays (local day numbers) in [fromDay, toDay] under one calendar drawn from the world. */
function paydays(world: World, u: (...key: (string | number)[]) => number, fromDay: number, toDay: number): number[] {
  const kind = pickShare(world.pay.shares, u('calendar'));
  const out: number[] = [];
  if (kind === 'weekly' || kind === 'biweekly') {
    const weekday = pickItem(world.pay.weekdays, u('weekday')).day;
    const phase = u('phase') < 0.5 ? 0 : 1;
    for (let d = fromDay; d <= toDay; d++) {
      if (weekdayOfDay(d) === weekday && (kind === 'weekly' || Math.floor(d / 7) % 2 === phase)) out.push(d);
    }
    return out;
  }
  const days: readonly MonthDay[] = kind === 'semimonthly' ? world.pay.semimonthly[0]! : [world.pay.monthly[Math.floor(u('monthly') * world.pay.monthly.length)]!];
  const first = new Date(fromDay * DAY_MS);
  for (let m = -1; Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + m, 1) / DAY_MS <= toDay; m++) {
    for (const which of days) {
      const d = monthDay(first.getUTCFullYear(), first.getUTCMonth() + m, which, world.pay.weekend);
      if (d >= fromDay && d <= toDay) out.push(d);
    }
  }
  return out.sort((a, b) => a - b);
}

/** A month's pay date as a day number; a weekend date moves to the business day before or after. */
function monthDay(year: number, month: number, which: MonthDay, weekend: 'before' | 'after'): number {
  const last = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  let d = Date.UTC(year, month, which === -1 ? last : Math.min(which, last)) / DAY_MS;
  const step = which === -1 || weekend === 'before' ? -1 : 1;
  while (weekdayOfDay(d) === 0 || weekdayOfDay(d) === 6) d += step;
  return d;
}
