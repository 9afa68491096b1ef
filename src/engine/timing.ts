// When to retry a soft decline, given the earliest moment every rule allows (`earliestMs`):
// temporary issuer trouble soon with growing gaps, insufficient funds on the payer's payday
// mornings, other soft declines a day later and then with gaps growing by a day (DESIGN.md §3
// says "spaced daily"; docs/engine-rescue-quality.md shows why the gaps grow). All pure
// arithmetic on epoch ms.
import type { SoftKind } from '../declines/reasons.ts';
import type { MerchantModel } from './plan-types.ts';
import type { Rules } from './rules.ts';
import { DAY_MS, HOUR_MS, calendarOf, isPayday, localDayStart, localHour } from '../calendar.ts';

type Timing = Rules['timing'];

export interface TimingContext {
  timing: Timing;
  offsetMs: number;
  /** Deterministic offset in [0, spreadMs) from the order id. */
  spreadMs: number;
  model: MerchantModel | undefined;
}

/** The minimum gap after the previous attempt for this kind of soft decline. */
export function minGapMs(kind: SoftKind, attemptsSoFar: number, timing: Timing): number {
  if (kind === 'funds') return timing.fundsMinGapMs;
  if (kind === 'generic') return timing.genericMinGapMs;
  const schedule = timing.temporaryBackoffMs;
  return schedule[Math.min(attemptsSoFar, schedule.length - 1)] ?? HOUR_MS;
}

/** Funds: the first payday morning at or after `earliestMs` (searching two months ahead). */
export function paydayMorning(earliestMs: number, ctx: TimingContext): number | undefined {
  const first = nextPaydayMorning(earliestMs, ctx, 62);
  if (first === undefined || !ctx.model) return first;
  return preferModelDay(first, ctx);
}

function nextPaydayMorning(fromMs: number, ctx: TimingContext, maxDays: number): number | undefined {
  const { timing, offsetMs } = ctx;
  const startDay = localDayStart(fromMs, offsetMs);
  for (let i = 0; i < maxDays; i++) {
    const day = startDay + i * DAY_MS;
    if (!isPayday(day, timing)) continue;
    const slot = day + morningHour(ctx) * HOUR_MS + (ctx.spreadMs % HOUR_MS) - offsetMs;
    if (slot >= fromMs) return slot;
    // Already inside this payday's window: go now rather than wait for the next payday.
    if (fromMs < day + timing.morningEndLocalHour * HOUR_MS - offsetMs) return fromMs;
  }
  return undefined;
}

/** A later payday replaces the first when the merchant's approvals favour its day clearly. */
function preferModelDay(firstMs: number, ctx: TimingContext): number {
  const { timing } = ctx;
  const firstDay = localDayStart(firstMs, ctx.offsetMs);
  const next = nextPaydayMorning(firstDay + DAY_MS - ctx.offsetMs, ctx, timing.modelDayMaxExtraDays);
  if (next === undefined) return firstMs;
  const w1 = dayWeight(firstMs, ctx);
  const w2 = dayWeight(next, ctx);
  return w2 >= w1 * timing.modelDayPreferenceRatio && w2 > 0 ? next : firstMs;
}

/** The morning hour to aim at: the model's best hour inside the window, else its start. */
function morningHour(ctx: TimingContext): number {
  const { morningStartLocalHour: start, morningEndLocalHour: end } = ctx.timing;
  if (!ctx.model) return start;
  let best = start;
  for (let h = start + 1; h < end; h++) {
    if ((ctx.model.hourWeights[h] ?? 0) > (ctx.model.hourWeights[best] ?? 0)) best = h;
  }
  return best;
}

function dayWeight(utcMs: number, ctx: TimingContext): number {
  const { day } = calendarOf(localDayStart(utcMs, ctx.offsetMs));
  return ctx.model?.dayOfMonthWeights[day - 1] ?? 0;
}

/**
 * Funds, when no payday morning fits before the deadline: the latest morning window that
 * does (later is better for funds), else the deadline itself.
 */
export function lastMorningBefore(earliestMs: number, deadlineMs: number, ctx: TimingContext): number {
  const { timing, offsetMs } = ctx;
  for (let day = localDayStart(deadlineMs, offsetMs); day >= localDayStart(earliestMs, offsetMs); day -= DAY_MS) {
    const lo = Math.max(earliestMs, day + timing.morningStartLocalHour * HOUR_MS - offsetMs);
    const hi = Math.min(deadlineMs, day + timing.morningEndLocalHour * HOUR_MS - offsetMs);
    if (lo < hi) return lo;
  }
  return deadlineMs;
}

/**
 * The gap a generic retry keeps after the previous attempt: a day, growing with each attempt,
 * up to the cap; but no longer than an even share of the time left among the attempts left
 * (`attemptsLeft`), so the order's allowance is spent by its deadline, and never shorter than
 * the minimum gap.
 */
export function genericGapMs(attemptsSoFar: number, timing: Timing, timeLeftMs = Infinity, attemptsLeft = 0): number {
  const growing = Math.min(timing.genericMaxGapMs, timing.genericSpacingMs + attemptsSoFar * timing.genericSpacingGrowthMs);
  const even = attemptsLeft > 0 ? timeLeftMs / attemptsLeft : Infinity;
  return Math.max(timing.genericMinGapMs, Math.min(growing, even));
}

/** Generic: `gapMs` after the previous attempt, nudged to the merchant's best hour, spread. */
export function dailySlot(earliestMs: number, anchorMs: number, gapMs: number, ctx: TimingContext): number {
  const base = Math.max(earliestMs, anchorMs + gapMs);
  if (!ctx.model) return base + ctx.spreadMs;
  let best = base;
  let bestWeight = -Infinity;
  // A later hour is tried from its start (in the payer's clock), so the spread below keeps the
  // attempt inside the best hour whatever minute the gap ended on.
  const hourStart = base - ((((base + ctx.offsetMs) % HOUR_MS) + HOUR_MS) % HOUR_MS);
  for (let k = 0; k < ctx.timing.modelNudgeWindowHours; k++) {
    const t = k === 0 ? base : hourStart + k * HOUR_MS;
    const w = ctx.model.hourWeights[localHour(t, ctx.offsetMs)] ?? 0;
    if (w > bestWeight) {
      best = t;
      bestWeight = w;
    }
  }
  return best + (ctx.spreadMs % HOUR_MS);
}

/**
 * Generic: a payday morning within half the gap either side of the generic slot, when there
 * is one. Many generic declines (05, do not honour) are a shortage of money the issuer does not
 * name, and a hold lifts whatever the hour, so aiming a generic retry at a payday morning
 * costs the holds nothing and catches the money that came in.
 */
export function genericPaydaySlot(earliestMs: number, slotMs: number, gapMs: number, ctx: TimingContext): number | undefined {
  const slack = gapMs * ctx.timing.genericPaydayPull;
  if (slack <= 0) return undefined;
  const payday = nextPaydayMorning(Math.max(earliestMs, slotMs - slack), ctx, Math.ceil(2 * slack / DAY_MS) + 1);
  return payday !== undefined && payday <= slotMs + slack ? payday : undefined;
}

// Validation is memoised per model object: the same model serves every order of a merchant.
const checkedModels = new WeakMap<MerchantModel, boolean>();

/** A model of the documented shape with finite, non-negative weights; anything else is ignored. */
export function usableModel(model: MerchantModel | null | undefined): MerchantModel | undefined {
  if (!model) return undefined;
  let ok = checkedModels.get(model);
  if (ok === undefined) {
    ok = validWeights(model.hourWeights, 24) && validWeights(model.dayOfMonthWeights, 31);
    checkedModels.set(model, ok);
  }
  return ok ? model : undefined;
}

function validWeights(w: readonly number[], n: number): boolean {
  return Array.isArray(w) && w.length === n && w.every((x) => Number.isFinite(x) && x >= 0);
}
