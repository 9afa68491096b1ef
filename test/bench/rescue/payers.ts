// The hidden state of every simulated payer, drawn once from the population and the seed:
// what the issuer knows and the merchant does not (pay calendar, when a hold lifts, how long
// an outage lasts, the issuer's velocity limit). Each payer has one card and one declined
// rebill (the order). Nothing here is visible to the engine: it gets the order as a merchant
// would send it (code, brand, amount, time zone, deadline) and the processor's answers.
import { DAY_MS, HOUR_MS, localDayOf, paydaysBetween, type PaySchedule } from './calendar.ts';
import type { AdviceKey, Population, Reason } from './population.ts';
import { exponential, logNormal, pickItem, pickShare, uniform } from './random.ts';

export type Brand = 'visa' | 'mastercard' | 'amex';

/** How the payer's account behaves once any outage is over. */
export type Behaviour =
  /** The issuer will never approve (hard decline). */
  | { kind: 'never'; code: string; advice?: string }
  /** Approves at the first attempt that reaches the issuer. */
  | { kind: 'approve' }
  /** Money for the charge is there only inside these [from, to) windows (UTC ms): paydays and stray inflows. */
  | { kind: 'funds'; shortCode: string; windows: Array<[number, number]> }
  /** A generic issuer hold that lifts at `liftsAtMs` (Infinity: never). */
  | { kind: 'hold'; shortCode: string; liftsAtMs: number };

export interface Payer {
  index: number;
  brand: Brand;
  amount: number;
  /** True local offset east of UTC, hours. */
  offsetHours: number;
  /** The offset the merchant sends in the order (0 when it does not know the payer's zone). */
  reportedOffsetHours: number;
  reason: Reason;
  declineAtMs: number;
  expiryMs: number;
  /** The code of the merchant's original decline, as the order carries it. */
  originalCode: string;
  /** Until when the issuer is unreachable (answers `outageCode`); equal to declineAtMs when there is no outage. */
  outageUntilMs: number;
  outageCode: string;
  behaviour: Behaviour;
  /** The Mastercard advice code this issuer adds to its soft declines. */
  advice: AdviceKey;
  /** Declines in 30 days after which the issuer refuses this card at this merchant (Infinity: no such rule). */
  velocityLimit: number;
}

/** `count` payers; payer i is the same for every strategy and every run with this seed. */
export function drawPayers(pop: Population, seed: number, count: number): Payer[] {
  return Array.from({ length: count }, (_, i) => drawPayer(pop, seed, i));
}

function drawPayer(pop: Population, seed: number, index: number): Payer {
  const { p } = pop;
  const u = (...key: (string | number)[]) => uniform(seed, index, ...key);
  const brand = pickShare(p.brands, u('brand'));
  const offsetHours = pickItem(p.timezones, u('tz')).utcOffsetHours;
  const startMs = Date.parse(p.startUtc);
  const declineAtMs = startMs + Math.floor(u('arrival') * p.arrivalDays * 1440) * 60_000;
  const expiryMs = declineAtMs + p.retryWindowDays * DAY_MS;
  const reason = pickShare(p.reasons, u('reason'));
  const base = { index, brand, amount: pickItem(p.prices, u('price')).cents, offsetHours, reason, declineAtMs, expiryMs };
  const reportedOffsetHours = u('tz-reported') < p.timezoneReported ? offsetHours : 0;
  const advice = brand === 'mastercard' ? pickShare(p.mastercardAdvice, u('advice')) : 'none';
  const velocityLimit = u('velocity') < p.issuerVelocity.share ? p.issuerVelocity.minDeclines + Math.floor(u('velocity-limit') * (p.issuerVelocity.maxDeclines - p.issuerVelocity.minDeclines + 1)) : Infinity;
  const codes = p.codes[reason];
  const outageCode = p.outage.codes[Math.floor(u('outage-code') * p.outage.codes.length)]!;
  const common = { ...base, reportedOffsetHours, advice, velocityLimit, outageCode, outageUntilMs: declineAtMs };

  if (reason === 'issuer_unavailable') {
    const minutes = logNormal(p.outage.medianMinutes, p.outage.sigma, u('outage-1'), u('outage-2'));
    const after = pickShare(p.afterOutage, u('after-outage'));
    const behaviour: Behaviour = after === 'approve' ? { kind: 'approve' } : after === 'funds' ? funds(pop, seed, base, '51') : hold(pop, seed, base, '05');
    return { ...common, originalCode: outageCode, outageUntilMs: declineAtMs + Math.round(minutes) * 60_000, behaviour };
  }
  const code = brand === 'mastercard' ? codes.mastercard : brand === 'amex' ? codes.amex : codes.visa;
  if (reason === 'insufficient_funds' || reason === 'limit_exceeded') return { ...common, originalCode: code, behaviour: funds(pop, seed, base, code) };
  if (reason === 'do_not_honor') {
    // Issuers answer 05 to many declines that are really about money (the source in population.json).
    const behaviour = u('dnh-funds') < p.doNotHonorIsFunds ? funds(pop, seed, base, code) : hold(pop, seed, base, code);
    return { ...common, originalCode: code, behaviour };
  }
  const never: Behaviour = brand === 'mastercard' && codes.mastercardAdvice ? { kind: 'never', code, advice: codes.mastercardAdvice } : { kind: 'never', code };
  return { ...common, originalCode: code, behaviour: never };
}

type Base = Pick<Payer, 'index' | 'offsetHours' | 'declineAtMs' | 'expiryMs'>;

/** Paydays (and stray inflows) from the decline to the deadline, each covering the charge or not. */
function funds(pop: Population, seed: number, payer: Base, shortCode: string): Behaviour {
  const { p } = pop;
  const u = (...key: (string | number)[]) => uniform(seed, payer.index, 'funds', ...key);
  if (u('never') < p.fundsNeverRecover) return { kind: 'funds', shortCode, windows: [] };
  const offsetMs = payer.offsetHours * HOUR_MS;
  const depositHour = p.depositLocalHours.from + u('deposit-hour') * (p.depositLocalHours.to - p.depositLocalHours.from);
  const windows: Array<[number, number]> = [];
  const add = (fromMs: number, key: string | number) => {
    if (fromMs <= payer.declineAtMs || fromMs >= payer.expiryMs) return;
    if (u('covers', key) >= p.paydayCovers) return;
    windows.push([fromMs, fromMs + exponential(p.fundsLastMeanHours, u('lasts', key)) * HOUR_MS]);
  };
  const firstDay = localDayOf(payer.declineAtMs, offsetMs);
  const lastDay = localDayOf(payer.expiryMs, offsetMs);
  for (const day of paydaysBetween(schedule(pop, u), firstDay, lastDay)) add(day * DAY_MS + depositHour * HOUR_MS - offsetMs, day);
  const strayPerDay = p.strayInflowsPer30Days / 30;
  for (let day = firstDay; day <= lastDay; day++) {
    if (u('stray', day) < strayPerDay) add(day * DAY_MS + u('stray-at', day) * DAY_MS - offsetMs, `stray-${day}`);
  }
  windows.sort((a, b) => a[0] - b[0]);
  return { kind: 'funds', shortCode, windows };
}

function schedule(pop: Population, u: (...key: (string | number)[]) => number): PaySchedule {
  const { p } = pop;
  const kind = pickShare(p.paySchedules, u('schedule'));
  if (kind === 'weekly') return { kind, weekday: p.payWeekday };
  if (kind === 'biweekly') return { kind, weekday: p.payWeekday, phase: u('phase') < 0.5 ? 0 : 1 };
  if (kind === 'semimonthly') return { kind, days: pickItem(p.semimonthlyDays, u('semimonthly')).days };
  return { kind, days: [pickItem(p.monthlyDay, u('monthly')).day] };
}

function hold(pop: Population, seed: number, payer: Base, shortCode: string): Behaviour {
  const { hold: h } = pop.p;
  const u = (key: string) => uniform(seed, payer.index, 'hold', key);
  const liftsAtMs = u('recoverable') < h.recoverable ? payer.declineAtMs + exponential(h.resolutionMeanDays, u('lifts')) * DAY_MS : Infinity;
  return { kind: 'hold', shortCode, liftsAtMs };
}
