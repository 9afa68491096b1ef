// recoveryReport(): the one query module behind the console, `rescued report` and
// GET /v1/reports/recovery (DESIGN.md §3a). Each part is one aggregate statement
// (src/reports/sql/); this file runs them and assembles the answer.
import type { Db } from '../db/client.ts';
import { orderFigureRows } from './sql/order-figures.ts';
import { attemptsDonePerDay, attemptsPlannedPerDay, type DoneDay } from './sql/attempts-per-day.ts';
import { queueDepth } from './sql/queue.ts';
import { webhookBacklog } from './sql/webhook-backlog.ts';
import { batchesInProgress } from './sql/batches-in-progress.ts';
import type { ReportScope } from './sql/scope.ts';
import { learnedTiming } from './learned.ts';
import { byBrand, byCause, byMerchant, byReason, ordersByState, overall } from './figures.ts';
import { recoveryCauseRows } from './sql/recovery-causes.ts';
import type { DayRow, RecoveryReport } from './schema.ts';

export type { ReportScope } from './sql/scope.ts';

const DAY_MS = 86_400_000;
/** The fewest days the chart spans (a single day is no chart), and the most days ahead it shows. */
export const MIN_DAYS = 7;
export const MAX_DAYS_AHEAD = 366;

/** The statements a report runs, one after the other (onStep counts them). */
export const REPORT_PARTS = 8;

export interface ReportOptions extends ReportScope {
  /** The merchant's public mid, echoed in the answer (null: every merchant). */
  mid?: string | null;
  /** Told after each statement: `rescued report` shows it on a terminal when the report is slow. */
  onStep?: (done: number, total: number, step: string) => void;
}

const dayOf = (d: Date) => d.toISOString().slice(0, 10);
const startOfDay = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));

/** Every day from `from` to `to` with its done and planned attempts, zeros included (a chart needs the gaps). */
export function dayRows(from: Date, to: Date, done: DoneDay[], planned: { day: string; planned: number }[]): { days: DayRow[]; plannedLater: number } {
  const rows = new Map<string, DayRow>();
  for (let t = startOfDay(from).getTime(); t <= to.getTime(); t += DAY_MS) {
    const day = dayOf(new Date(t));
    rows.set(day, { day, done: 0, approved: 0, declined: 0, planned: 0 });
  }
  for (const d of done) {
    const row = rows.get(d.day);
    if (row) Object.assign(row, { done: d.done, approved: d.approved, declined: d.declined });
  }
  let plannedLater = 0;
  for (const p of planned) {
    const row = rows.get(p.day);
    if (row) row.planned = p.planned;
    else if (p.day > dayOf(to)) plannedLater += p.planned;
  }
  return { days: [...rows.values()], plannedLater };
}

/**
 * The days the attempts chart spans: from `since` (the scope asked for), or else from the first
 * day with an attempt, to the last day with a planned one — the data it has, not a fixed
 * window around today (which hid older attempts under "all time" and planned ones a month
 * out). Today is always in it; at least MIN_DAYS; planned attempts past MAX_DAYS_AHEAD are
 * counted in `plannedLater`.
 */
export function daySpan(since: Date | undefined, now: Date, done: DoneDay[], planned: { day: string }[]): { from: Date; to: Date } {
  const today = startOfDay(now);
  const first = done[0] ? new Date(`${done[0].day}T00:00:00Z`) : today;
  const from = since ? startOfDay(since) : new Date(Math.min(first.getTime(), today.getTime()));
  const last = planned.at(-1) ? new Date(`${planned.at(-1)!.day}T00:00:00Z`) : today;
  const latest = Math.min(today.getTime() + MAX_DAYS_AHEAD * DAY_MS, Math.max(last.getTime(), today.getTime()));
  return { from, to: new Date(Math.max(latest, from.getTime() + (MIN_DAYS - 1) * DAY_MS)) };
}

export async function recoveryReport(db: Db, opts: ReportOptions): Promise<RecoveryReport> {
  const scope: ReportScope = { merchantId: opts.merchantId, since: opts.since, now: opts.now };
  let done = 0;
  const step = async <T>(name: string, work: Promise<T>): Promise<T> => {
    const value = await work;
    opts.onStep?.(++done, REPORT_PARTS, name);
    return value;
  };
  // One after the other: PGlite runs one statement at a time anyway, and on a server the
  // report should not take seven pool connections from the real-time calls.
  const rows = await step('orders', orderFigureRows(db, scope));
  const causes = await step('recovery causes', recoveryCauseRows(db, scope));
  const doneDays = await step('attempts', attemptsDonePerDay(db, scope, opts.since ?? new Date(0)));
  const plannedDays = await step('planned attempts', attemptsPlannedPerDay(db, scope));
  const queue = await step('queue', queueDepth(db, scope));
  const webhooks = await step('webhooks', webhookBacklog(db, scope));
  const batches = await step('batches', batchesInProgress(db, scope));
  const { from, to } = daySpan(opts.since, opts.now, doneDays, plannedDays);
  const learned = await step('learned timing', learnedTiming(db, scope.merchantId));
  const { days, plannedLater } = dayRows(from, to, doneDays, plannedDays);
  return {
    generatedAt: opts.now.toISOString(),
    mid: opts.mid ?? null,
    since: opts.since?.toISOString() ?? null,
    ordersByState: ordersByState(rows),
    overall: overall(rows),
    byReason: byReason(rows),
    byBrand: byBrand(rows),
    byMerchant: byMerchant(rows),
    byRecoveryCause: byCause(causes),
    attemptsPerDay: { from: dayOf(from), to: dayOf(to), days, plannedLater },
    queue,
    webhooks,
    batchesInProgress: batches,
    learnedTiming: learned,
  };
}

/** The live part the console polls: queue, webhooks and batches, without the scans of the full report. */
export async function liveFigures(db: Db, scope: ReportScope): Promise<Pick<RecoveryReport, 'queue' | 'webhooks' | 'batchesInProgress'> & { generatedAt: string }> {
  const queue = await queueDepth(db, scope);
  const webhooks = await webhookBacklog(db, scope);
  const batches = await batchesInProgress(db, scope);
  return { generatedAt: scope.now.toISOString(), queue, webhooks, batchesInProgress: batches };
}
