// Network rules and timing policy as data: the planner reads every limit from here, so a rule
// change (Visa raising its cap, a new Mastercard advice code) is a config change, not a code
// change. Units are in the names.
// Sources: shared/reference/card-networks.md (Visa categories, Mastercard MAC and excessive-
// attempt rules); DESIGN.md §3 (timing).
import { MASTERCARD_ADVICE_DELAYS_MS, MASTERCARD_STOP_ADVICE } from '../declines/mastercard.ts';
import { MASTERCARD_ATTEMPT_LIMITS, VISA_REATTEMPT_LIMITS } from '../config/network-limits.ts';

const HOUR_MS = 3_600_000;

export const defaultRules = {
  visa: {
    // Categories 2–4: reattempts per card and merchant in 30 days, the dated table of
    // src/config/network-limits.ts (15; 20 with CIT and MIT apart from 25 April 2026).
    reattemptLimits: VISA_REATTEMPT_LIMITS,
    // Category 1: the issuer will never approve. 'never' stops at once; 'capped' would only
    // count it against the cap (kept for completeness; Visa fines every reattempt).
    category1: 'never',
  },
  mastercard: {
    // The excessive-attempt programme: 35 authorizations in 30 days and 20 declines in 24
    // hours per card and merchant, originals and the merchant's earlier tries included (the
    // dated table of src/config/network-limits.ts).
    attemptLimits: MASTERCARD_ATTEMPT_LIMITS,
    // MAC 01 new account information, 03 do not try again, 04 token requirements not met,
    // 21 payment cancelled: no further attempt on this order (src/declines/mastercard.ts).
    stopAdvice: MASTERCARD_STOP_ADVICE,
    // MAC 03 and 21 speak for the card at this merchant, not just one order: a later order of
    // the same card is not attempted for 30 days after either (03: every resubmission within
    // 30 days is fined).
    cardBlockingAdvice: ['03', '21'],
    // MAC 24–30: not before the advised delay after the decline that carried it (1 hour to
    // 10 days, src/declines/mastercard.ts).
    adviceDelaysMs: MASTERCARD_ADVICE_DELAYS_MS,
  },
  // Amex, Discover and others publish no reattempt cap we know of: Visa's older allowance (15
  // reattempts in 30 days, counted as Visa counts them) is applied, so no brand is retried
  // more freely than the strictest network ever allowed.
  otherBrands: { maxAttemptsPer30Days: 15 },
  // Per order: 15 attempts, Visa's allowance per card in 30 days until April 2026,
  // so a generic decline can spend it across its retry window: the rescue-quality simulation
  // (docs/engine-rescue-quality.md) recovered more with it, at fewer attempts per recovered
  // order than retrying once. Funds declines use fewer by themselves (one try per payday).
  // The cost: an order that spends them all leaves a second order of the same Visa card in
  // the same 30 days waiting until its attempts age out of the window (the card caps below).
  maxAttemptsPerOrder: 15,
  timing: {
    // A plan is never for "now": at least this far ahead, so `at > now` always holds.
    minLeadMs: 60_000,
    // Every attempt starts at least this long before expiryDateUtc: claiming and queueing
    // take time, and an attempt must not run after the deadline.
    expiryMarginMs: 30 * 60_000,
    // Soft-temporary (issuer unavailable, system error): wait after the n-th attempt of the
    // order, the last value repeating.
    temporaryBackoffMs: [15 * 60_000, HOUR_MS, 4 * HOUR_MS, 12 * HOUR_MS, 24 * HOUR_MS],
    // Soft-funds: the next payday morning in the payer's time, but never sooner than this
    // after the previous attempt.
    fundsMinGapMs: 12 * HOUR_MS,
    // Local morning window [start, end) in whole hours of the payer's clock: salaries are
    // booked overnight and spent during the day. It starts at 8:00, when a payday's credit is
    // there: US payroll credits must be available by 9:00 local (NACHA), European salary
    // transfers are booked overnight; at 6:00 some are not booked yet (docs/engine.md).
    morningStartLocalHour: 8,
    morningEndLocalHour: 10,
    // Common pay dates: the 1st and the 15th (US semi-monthly pay), the 25th (monthly pay in
    // Sweden, the Netherlands, Japan and others), the 28th (a common monthly date in the UK),
    // and the last business day (monthly pay in most of Europe and for US monthly payrolls).
    paydayDaysOfMonth: [1, 15, 25, 28],
    paydayLastBusinessDay: true,
    // A pay date on a Saturday or Sunday is paid the Friday before (the usual rule for
    // payroll in the US and Europe), so the weekend day itself is not tried.
    paydayWeekendToFriday: true,
    // 0 = Sunday … 6 = Saturday; weekly and bi-weekly pay lands on Fridays.
    paydayWeekdays: [5],
    // Soft-generic: two days after the previous attempt (the first two days after the
    // decline), growing by `genericSpacingGrowthMs` per attempt up to `genericMaxGapMs`; but
    // never longer than an even share of the time left to the deadline among the attempts
    // the order and the card may still make, so the allowance reaches across the whole
    // window (issuers' holds lift over days to weeks: Recurly sees recoveries 2–12 days after
    // the decline, temporary holds up to 15) and the last try comes close to the deadline.
    // Never sooner than the minimum gap.
    genericSpacingMs: 48 * HOUR_MS,
    genericSpacingGrowthMs: 0,
    genericMaxGapMs: 7 * 24 * HOUR_MS,
    genericMinGapMs: 6 * HOUR_MS,
    // A generic retry moves to a payday morning within this share of its gap either side of
    // its slot: many 05s are a shortage of money the issuer does not name (about half, by
    // Adyen's figures), and a hold lifts whatever the hour. 0 turns it off.
    genericPaydayPull: 0.5,
    // Deterministic spread from a hash of the order id, so a batch of orders with one
    // payday does not hit the processor in the same minute.
    spreadMs: 60 * 60_000,
    // With a merchant model, the generic slot moves to the best-approving hour within this
    // many hours after the daily slot.
    modelNudgeWindowHours: 6,
    // A later payday replaces the first only when the model weighs its day of month this much
    // higher and it is at most this many days later.
    modelDayPreferenceRatio: 1.25,
    modelDayMaxExtraDays: 4,
  },
} as const;

type Widen<T> = T extends string
  ? string
  : T extends number
    ? number
    : T extends boolean
      ? boolean
      : T extends readonly (infer U)[]
        ? readonly Widen<U>[]
        : { readonly [K in keyof T]: Widen<T[K]> };

/** The rules' type, derived from the defaults with every literal widened. */
export type Rules = Widen<typeof defaultRules> & {
  readonly mastercard: { readonly adviceDelaysMs: Readonly<Record<string, number>> };
};

export type DeepPartial<T> = T extends readonly unknown[] ? T : T extends object ? { readonly [K in keyof T]?: DeepPartial<T[K]> } : T;

export type VisaReattemptLimit = Rules['visa']['reattemptLimits'][number];
export type MastercardAttemptLimit = Rules['mastercard']['attemptLimits'][number];

/**
 * The row of a dated table in force at `atMs`: the latest whose day (UTC) has begun; before
 * the first row's day, the first row (the oldest rule known governs the days before it).
 */
export function limitInForce<T extends { readonly fromUtc: string }>(rows: readonly T[], atMs: number): T {
  let chosen = rows[0];
  let chosenFrom = -Infinity;
  const froms = fromTimes(rows);
  for (let i = 0; i < rows.length; i++) {
    const from = froms[i]!;
    if (from <= atMs && from >= chosenFrom) {
      chosen = rows[i];
      chosenFrom = from;
    }
  }
  if (!chosen) throw new Error('a dated rules table needs at least one row');
  return chosen;
}

// Each table's days as times, parsed once per table (the planner reads them for every plan).
const FROM_TIMES = new WeakMap<readonly unknown[], number[]>();

function fromTimes(rows: readonly { readonly fromUtc: string }[]): number[] {
  let times = FROM_TIMES.get(rows);
  if (!times) {
    times = rows.map((r) => Date.parse(`${r.fromUtc}T00:00:00Z`));
    FROM_TIMES.set(rows, times);
  }
  return times;
}

/**
 * Defaults with overrides laid over them, key by key; arrays and the advice-delay map are
 * replaced whole. The config stage validates values; this only merges.
 */
export function resolveRules(overrides: DeepPartial<Rules> = {}): Rules {
  return merge(defaultRules, overrides) as Rules;
}

function merge(base: unknown, over: unknown): unknown {
  if (over === undefined) return base;
  if (!isPlainObject(base) || !isPlainObject(over)) return over;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    out[k] = k === 'adviceDelaysMs' ? v : merge(base[k], v);
  }
  return out;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
