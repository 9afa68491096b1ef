// One simulated world per seed: the parameters of a merchant's payers and their issuers, each
// drawn from a wide distribution, so the evaluation is not one population the planner could
// have been tuned to. Deposit hours anywhere in the day, pay calendars on arbitrary weekdays
// and month days, with or without issuer velocity blocks, codes that escalate after repeated
// declines, Mastercard advice on the original declines, several orders per card, merchant
// retries before the hand-over, approval that depends on the amount, cards replaced during
// the window. The ranges are wide on purpose: they say what is plausible, not what is likely.
//
// This file, cards.ts, bank.ts and the checker import nothing from src/ (not the planner, its
// rules, the decline tables or the calendar): test/unit/bench/rescue-world.test.ts checks the
// import graph. A draw is a pure function of (seed, key), never of the order of draws.
import { uniform } from './random.ts';

export type Brand = 'visa' | 'mastercard' | 'amex';
export const REASONS = ['funds', 'limit', 'generic', 'outage', 'expired', 'lost_or_stolen', 'closed', 'invalid_number', 'fraud', 'stop_recurring'] as const;
export type Reason = (typeof REASONS)[number];
export const HARD_REASONS = ['expired', 'lost_or_stolen', 'closed', 'invalid_number', 'fraud', 'stop_recurring'] as const satisfies readonly Reason[];
export const ADVICE_KEYS = ['none', '02', '24', '25', '26', '27', '28', '29', '30'] as const;
export type AdviceKey = (typeof ADVICE_KEYS)[number];
export type PayKind = 'weekly' | 'biweekly' | 'semimonthly' | 'monthly';
/** A day of the month, or -1 for the last business day. */
export type MonthDay = number;

/** The named populations `--population` selects. */
export const POPULATIONS = ['random', 'deposits-9-15'] as const;
export type PopulationName = (typeof POPULATIONS)[number];

export interface World {
  seed: number;
  population: PopulationName;
  /** The first original decline (UTC ms); declines arrive over `arrivalDays` from then. */
  startMs: number;
  arrivalDays: number;
  /** An order's deadline: this many days after its original decline. */
  windowDays: number;
  brands: Record<Brand, number>;
  /** Payers' UTC offsets: centre ± spread whole hours; the share of orders that carry the real offset (the rest send 0). */
  zone: { centre: number; spread: number; known: number };
  /** Order amounts: log-normal around the median (cents). */
  price: { medianCents: number; sigma: number };
  reasons: Record<Reason, number>;
  /** Generic (05) declines that are really a shortage of money. */
  genericIsFunds: number;
  pay: {
    shares: Record<PayKind, number>;
    /** Pay weekdays (0 = Sunday) with their weights. */
    weekdays: Array<{ day: number; share: number }>;
    semimonthly: Array<[MonthDay, MonthDay]>;
    monthly: MonthDay[];
    /** A pay date on a weekend is paid the business day before or after. */
    weekend: 'before' | 'after';
  };
  /** Local hour the deposit lands (from, width in hours; wraps past midnight). */
  deposit: { fromHour: number; widthHours: number };
  funds: {
    /** A payday brings money for this charge at all. */
    paydayCovers: number;
    /** Money a covering payday leaves free, as a multiple of the card's usual price (log-normal median, sigma). */
    surplusMedian: number;
    surplusSigma: number;
    /** Mean hours before the money is spent elsewhere. */
    lastsMeanHours: number;
    neverRecover: number;
    strayPer30Days: number;
  };
  hold: { recoverable: number; meanDays: number; approveAfter: number; chanceBefore: number; amountElasticity: number };
  outage: { medianMinutes: number; then: { approve: number; funds: number; hold: number } };
  /** Mastercard advice on soft declines; the share of original declines that carry it; soft originals with MAC 03. */
  advice: { soft: Record<AdviceKey, number>; onOriginal: number; original03: number };
  /** Issuers that refuse a card at the merchant after `min`–`max` declines in 30 days (share 0: none). */
  velocity: { share: number; min: number; max: number };
  /** After this many declines in 30 days a funds decline is answered `code`; Mastercard 02 becomes 03 after `macAfter` (Infinity: never). */
  escalation: { after: number; code: string; macAfter: number };
  /** Cards replaced (new number) during the window: the old one never approves again. */
  replacedShare: number;
  /**
   * Where a card that must change gets its successor (spare-cards.ts; the bench's
   * --card-updates variants): the share of issuers enrolled in the gateway's account updater
   * (it knows the replacement or the new expiry); the share of payers who give the merchant a
   * new card when asked (order.card_update_needed) and the median hours they take; the share
   * of payers with a second stored card, and how often that card is in good standing.
   */
  updates: { updaterShare: number; merchantShare: number; merchantDelayMedianHours: number; otherCardShare: number; otherCardHealthy: number };
  /** Cards with more than one declined order, and the days between their orders. */
  orders: { multiShare: number; gapDays: number };
  /** Orders the merchant retried itself before handing them over: how many at most, how far apart. */
  prior: { share: number; max: number; spacingHours: number };
}

const DAY_MS = 86_400_000;
const between = (u: number, a: number, b: number) => a + u * (b - a);
const logUniform = (u: number, a: number, b: number) => Math.exp(between(u, Math.log(a), Math.log(b)));
const int = (u: number, a: number, b: number) => a + Math.floor(u * (b - a + 1));
const weights = <K extends string>(keys: readonly K[], w: (k: K) => number) => Object.fromEntries(keys.map((k) => [k, w(k)])) as Record<K, number>;

/** The world of `seed`: every strategy of the run meets the same one. */
export function drawWorld(seed: number, population: PopulationName = 'random'): World {
  const u = (...key: (string | number)[]) => uniform(seed, 'world', ...key);
  const visa = between(u('visa'), 0.4, 0.75);
  const mastercard = (1 - visa) * between(u('mc'), 0.6, 0.95);
  const hard = between(u('hard'), 0.03, 0.15);
  const hardWeights = weights(HARD_REASONS, (r) => u('hard', r));
  const hardTotal = HARD_REASONS.reduce((s, r) => s + hardWeights[r], 0);
  const velocityOn = u('velocity-on') < 0.7;
  const velocityMin = int(u('velocity-min'), 5, 15);
  const escalates = u('escalates') < 0.7;
  const monthlyCount = int(u('monthly-count'), 1, 3);
  const weekdayCount = int(u('weekday-count'), 1, 3);
  const semiFirst = int(u('semi-first'), 1, 15);
  const arrivalDays = int(u('arrival'), 1, 7);
  return {
    seed, population,
    // From Monday 11 January 2027, the first declines on any weekday of that week: a short
    // billing run starts on another weekday than a long one (all seeds share the engine's clock).
    startMs: Date.parse('2027-01-11T00:00:00Z') + int(u('start'), 0, 7 - arrivalDays) * DAY_MS,
    arrivalDays,
    windowDays: 30,
    brands: { visa, mastercard, amex: 1 - visa - mastercard },
    zone: { centre: Math.round(between(u('zone'), -10, 10)), spread: int(u('zone-spread'), 0, 3), known: between(u('zone-known'), 0.5, 1) },
    price: { medianCents: Math.round(logUniform(u('price'), 300, 20_000)), sigma: between(u('price-sigma'), 0, 1) },
    reasons: {
      funds: between(u('funds'), 0.15, 0.5), limit: between(u('limit'), 0, 0.1), generic: between(u('generic'), 0.15, 0.45),
      outage: between(u('outage'), 0.01, 0.08), ...weights(HARD_REASONS, (r) => (hard * hardWeights[r]) / hardTotal),
    },
    genericIsFunds: between(u('generic-funds'), 0.1, 0.6),
    pay: {
      // Some worlds lack a kind of calendar altogether (a quarter of the time each).
      shares: weights(['weekly', 'biweekly', 'semimonthly', 'monthly'] as const, (k) => (u('pay-none', k) < 0.25 ? 0.01 : u('pay', k))),
      weekdays: Array.from({ length: weekdayCount }, (_, i) => ({ day: int(u('weekday', i), 1, 5), share: u('weekday-share', i) + 0.1 })),
      semimonthly: [[semiFirst, semiFirst + 15 > 28 ? -1 : semiFirst + 15]],
      monthly: Array.from({ length: monthlyCount }, (_, i) => (u('monthly-last', i) < 0.2 ? -1 : int(u('monthly', i), 1, 28))),
      weekend: u('weekend') < 0.5 ? 'before' : 'after',
    },
    deposit: population === 'deposits-9-15' ? { fromHour: 9, widthHours: 6 } : { fromHour: between(u('deposit'), 0, 24), widthHours: between(u('deposit-width'), 0.5, 10) },
    funds: {
      paydayCovers: between(u('covers'), 0.5, 0.95), surplusMedian: logUniform(u('surplus'), 0.5, 4), surplusSigma: between(u('surplus-sigma'), 0.3, 1.2),
      lastsMeanHours: logUniform(u('lasts'), 6, 120), neverRecover: between(u('never'), 0.05, 0.4), strayPer30Days: between(u('stray'), 0, 3),
    },
    hold: {
      recoverable: between(u('hold-rec'), 0.3, 0.9), meanDays: logUniform(u('hold-days'), 0.5, 12), approveAfter: between(u('hold-after'), 0.4, 0.95),
      chanceBefore: logUniform(u('hold-chance'), 0.003, 0.06), amountElasticity: between(u('elasticity'), 0, 0.8),
    },
    outage: { medianMinutes: logUniform(u('outage-min'), 5, 600), then: { approve: between(u('then-ok'), 0.3, 0.9), funds: between(u('then-funds'), 0, 0.3), hold: between(u('then-hold'), 0, 0.3) } },
    advice: {
      soft: weights(ADVICE_KEYS, (k) => (k === 'none' ? between(u('mac-none'), 0.2, 0.7) : k === '02' ? between(u('mac-02'), 0, 0.4) : between(u('mac', k), 0, 0.05))),
      onOriginal: between(u('mac-original'), 0.3, 1),
      original03: between(u('mac-original-03'), 0, 0.05),
    },
    velocity: velocityOn ? { share: between(u('velocity'), 0.1, 0.7), min: velocityMin, max: velocityMin + int(u('velocity-range'), 0, 15) } : { share: 0, min: Infinity, max: Infinity },
    escalation: escalates
      ? { after: int(u('esc-after'), 2, 10), code: u('esc-code') < 0.6 ? '05' : '59', macAfter: u('esc-mac') < 0.7 ? int(u('esc-mac-after'), 3, 12) : Infinity }
      : { after: Infinity, code: '05', macAfter: Infinity },
    replacedShare: between(u('replaced'), 0, 0.08),
    updates: {
      updaterShare: between(u('updater'), 0.2, 0.8), merchantShare: between(u('merchant-update'), 0.1, 0.6), merchantDelayMedianHours: logUniform(u('merchant-update-delay'), 1, 96),
      otherCardShare: between(u('other-card'), 0.05, 0.4), otherCardHealthy: between(u('other-card-healthy'), 0.3, 0.9),
    },
    orders: { multiShare: between(u('multi'), 0, 0.4), gapDays: between(u('gap'), 1, 10) },
    prior: { share: between(u('prior'), 0, 0.7), max: int(u('prior-max'), 1, 5), spacingHours: logUniform(u('prior-spacing'), 0.25, 48) },
  };
}

/** The world's parameters in one line each, for the bench's log (what each seed drew). */
export function describeWorld(w: World): string {
  const pct = (x: number) => `${Math.round(x * 100)} %`;
  const cal = Object.entries(w.pay.shares).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ');
  return [
    `seed ${w.seed}: deposits ${w.deposit.fromHour.toFixed(1)} h local + ${w.deposit.widthHours.toFixed(1)} h; pay ${cal}; weekdays ${w.pay.weekdays.map((d) => d.day).join('/')}`,
    `monthly ${w.pay.monthly.map((d) => (d === -1 ? 'last business day' : d)).join('/')}; velocity blocks ${pct(w.velocity.share)}; escalation ${w.escalation.after === Infinity ? 'none' : `after ${w.escalation.after} declines`}; ${pct(w.orders.multiShare)} cards with several orders; ${pct(w.prior.share)} orders retried by the merchant; ${pct(w.replacedShare)} cards replaced; updater ${pct(w.updates.updaterShare)}, new card from ${pct(w.updates.merchantShare)} of payers after ~${w.updates.merchantDelayMedianHours.toFixed(0)} h, second card ${pct(w.updates.otherCardShare)}`,
  ].join('; ');
}
