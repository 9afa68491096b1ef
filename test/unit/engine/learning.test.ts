// Learned timing in the planner (src/engine/learning/): with no evidence a plan is the static
// model's, said to be the prior's; evidence moves a retry to the hour that approves, within a
// day of the static slot; and over many seeded inputs and tables a learned plan keeps every
// rule the static one keeps (caps, advised delays, minimum gaps, the expiry margin).
import { describe, expect, it } from 'vitest';
import { capsAllowAttempt, plan } from '../../../src/engine/planner.ts';
import type { AttemptRecord, Plan, PlanInput } from '../../../src/engine/plan-types.ts';
import { defaultRules } from '../../../src/engine/rules.ts';
import { buildLearnedTable, type LearnedRow } from '../../../src/engine/learning/table.ts';
import { cellOf, dayBucketLabel, weekdayHourLabel } from '../../../src/engine/learning/cell.ts';
import type { LearnedInput } from '../../../src/engine/learning/estimate.ts';
import { D, H, decline, input, order, pick, prng } from './fixtures.ts';
import type { SQL } from 'drizzle-orm';
import type { Db } from '../../../src/db/client.ts';
import type { OutcomeRow } from '../../../src/db/queries/learned-timing.ts';
import { outcomeCounter } from '../../../src/engine/learning/counter.ts';
import { ManualClock } from '../../../src/clock.ts';
import { silentLog } from '../../helpers/db.ts';

const timing = defaultRules.timing;

/** Rows as the grouping-sets read answers them, from cells (family, weekday, hour, bucket, attempts, approvals). */
function rowsOf(cells: Array<{ family: string; brand?: string; bin?: string; weekday: number; hour: number; bucket: number; attempts: number; approvals: number }>): LearnedRow[] {
  const out = new Map<string, LearnedRow>();
  const add = (r: Omit<LearnedRow, 'attempts' | 'approvals'>, attempts: number, approvals: number) => {
    const key = JSON.stringify(r);
    const hit = out.get(key) ?? { ...r, attempts: 0, approvals: 0 };
    hit.attempts += attempts;
    hit.approvals += approvals;
    out.set(key, hit);
  };
  const none = { brand: null, bin: null, weekday: null, localHour: null, dayBucket: null };
  for (const c of cells) {
    for (const family of [c.family, null]) {
      add({ ...none, family }, c.attempts, c.approvals);
      add({ ...none, family, localHour: c.hour }, c.attempts, c.approvals);
      add({ ...none, family, weekday: c.weekday }, c.attempts, c.approvals);
      add({ ...none, family, dayBucket: c.bucket }, c.attempts, c.approvals);
      add({ ...none, family, weekday: c.weekday, localHour: c.hour }, c.attempts, c.approvals);
      if (family === null) continue;
      add({ ...none, family, brand: c.brand ?? 'visa' }, c.attempts, c.approvals);
      add({ ...none, family, brand: c.brand ?? 'visa', bin: c.bin ?? '411111' }, c.attempts, c.approvals);
    }
  }
  return [...out.values()];
}

const EMPTY: LearnedInput = { table: buildLearnedTable([], []), family: 'do_not_honor', bin: '411111' };

describe('the learned table\'s cells', () => {
  it('reads the payer\'s local weekday, hour and day-of-month bucket', () => {
    // 2026-10-06 is a Tuesday; 23:30 UTC is 01:30 on Wednesday the 7th at UTC+2.
    expect(cellOf(Date.parse('2026-10-06T23:30:00Z'), 2 * H)).toEqual({ weekday: 3, localHour: 1, dayBucket: 1 });
    expect(cellOf(Date.parse('2026-10-31T12:00:00Z'), 0)).toEqual({ weekday: 6, localHour: 12, dayBucket: 5 });
    expect(cellOf(Date.parse('2026-10-01T03:00:00Z'), -5 * H)).toMatchObject({ dayBucket: 5 }); // still the 30th locally
    expect(weekdayHourLabel(2, 9)).toBe('Tue 09–10');
    expect(weekdayHourLabel(0, 23)).toBe('Sun 23–00');
    expect([0, 1, 5].map(dayBucketLabel)).toEqual(['days 1–5', 'days 6–10', 'days 26–31']);
  });
});

describe('learned timing in the planner', () => {
  // A do-not-honor order declined on Sunday 4 October 2026 08:00 UTC, expiring in 32 days: the
  // static model retries 48 hours later, on Tuesday the 6th in the 08:00 hour (days 6–10).
  const o = order({ id: 'learned-1', createdAt: new Date('2026-10-04T08:00:00Z'), expiryDateUtc: new Date('2026-11-05T08:00:00Z') });
  const base = input({ order: o, decline: decline({ responseCode: '05', cardBrand: 'VISA' }) });
  const staticPlan = plan(base) as Extract<Plan, { action: 'retry' }>;

  it('with nothing learned, plans the static slot and says the prior chose it', () => {
    expect(staticPlan).toMatchObject({ action: 'retry', reason: 'daily_spacing' });
    expect(staticPlan.at.getUTCHours()).toBe(8);
    expect(plan({ ...base, learned: EMPTY })).toEqual({ ...staticPlan, evidence: 'prior: daily_spacing' });
  });

  it('moves the retry to the hour that approves, with the evidence', () => {
    // Over every merchant: Tuesdays, days 6–10, 0 of 30 approved at 08:00 and 30 of 30 at 16:00.
    const global = rowsOf([
      { family: 'do_not_honor', weekday: 2, hour: 8, bucket: 1, attempts: 30, approvals: 0 },
      { family: 'do_not_honor', weekday: 2, hour: 16, bucket: 1, attempts: 30, approvals: 30 },
    ]);
    const p = plan({ ...base, learned: { ...EMPTY, table: buildLearnedTable([], global) } }) as Extract<Plan, { action: 'retry' }>;
    expect(p.at.getTime()).toBe(staticPlan.at.getTime() + 8 * H);
    expect(p.reason).toBe('daily_spacing');
    expect(p.evidence).toBe('learned (all merchants): do_not_honor on 411111, Tue 16–17 local: 100 % of 30 attempts (days 6–10; expected 66 % from 30 attempts)');
  });

  it('uses the merchant\'s own counts once it has enough of the family, and the table over all merchants before', () => {
    const cells = (n: number) => [
      { family: 'do_not_honor', weekday: 2, hour: 8, bucket: 1, attempts: n, approvals: 0 },
      { family: 'do_not_honor', weekday: 2, hour: 12, bucket: 1, attempts: n, approvals: n },
    ];
    // The merchant's 200 attempts say 12:00; the other merchants' (summed with it) would say the same
    // hour, but the wording shows whose counts decided.
    const own = plan({ ...base, learned: { ...EMPTY, table: buildLearnedTable(rowsOf(cells(100)), rowsOf(cells(1000))) } }) as Extract<Plan, { action: 'retry' }>;
    expect(own.evidence).toMatch(/^learned: do_not_honor on 411111, Tue 12–13 local: 100 % of 100 attempts/);
    const few = plan({ ...base, learned: { ...EMPTY, table: buildLearnedTable(rowsOf(cells(40)), rowsOf(cells(1000))) } }) as Extract<Plan, { action: 'retry' }>;
    expect(few.evidence).toMatch(/^learned \(all merchants\): do_not_honor on 411111, Tue 12–13 local: 100 % of 1000 attempts/);
    expect(own.at.getTime()).toBe(staticPlan.at.getTime() + 4 * H);
  });

  it('moved away from a slot the evidence finds poor, cites that slot\'s cell', () => {
    // 08:00 on Tuesdays is well known and bad; nothing is known of the other hours yet.
    const global = rowsOf([{ family: 'do_not_honor', weekday: 2, hour: 8, bucket: 1, attempts: 200, approvals: 4 }]);
    const p = plan({ ...base, learned: { ...EMPTY, table: buildLearnedTable([], global) } }) as Extract<Plan, { action: 'retry' }>;
    expect(p.at.getTime()).not.toBe(staticPlan.at.getTime());
    expect(Math.abs(p.at.getTime() - staticPlan.at.getTime())).toBe(H); // the nearest unknown hour
    expect(p.evidence).toMatch(/^learned \(all merchants\): do_not_honor on 411111, Tue 08–09 local: 2 % of 200 attempts \(days 6–10; expected \d+ % from 200 attempts\), so Tue 07–08 instead$/);
  });

  it('keeps the static slot while the evidence is thin, and leaves temporary backoffs alone', () => {
    const thin = rowsOf([{ family: 'do_not_honor', weekday: 2, hour: 16, bucket: 1, attempts: 3, approvals: 3 }]);
    expect(plan({ ...base, learned: { ...EMPTY, table: buildLearnedTable([], thin) } })).toEqual({ ...staticPlan, evidence: 'prior: daily_spacing' });
    const outage = input({ order: o, decline: decline({ responseCode: '91', cardBrand: 'VISA' }) });
    const rich = rowsOf([{ family: 'issuer_unavailable', weekday: 0, hour: 20, bucket: 0, attempts: 500, approvals: 500 }]);
    expect(plan({ ...outage, learned: { ...EMPTY, family: 'issuer_unavailable', table: buildLearnedTable([], rich) } })).toEqual(plan(outage));
  });
});

// Seeded inputs over declines, histories, brands, zones and deadlines, each with a random table.
const DECLINES = [
  { responseCode: '05' }, { responseCode: '51' }, { responseCode: '91' }, { responseCode: '61' }, { responseCode: '41' },
  { responseCode: '51', merchantAdviceCode: '25' }, { responseCode: '05', merchantAdviceCode: '27' }, { responseCode: '51', merchantAdviceCode: '30' },
];
const FAMILIES = ['insufficient_funds', 'do_not_honor', 'exceeds_limit'];

function randomCase(rand: () => number): PlanInput {
  const createdAt = new Date(Date.UTC(2026, 0, 1) + Math.floor(rand() * 365 * D));
  const attempts: AttemptRecord[] = [];
  let t = createdAt.getTime();
  for (let i = Math.floor(rand() * 8); i > 0; i--) {
    t += Math.floor(rand() * 2 * D) + 60_000;
    attempts.push({ at: new Date(t), responseCode: pick(rand, ['05', '51']), approved: false });
  }
  const now = new Date(t + Math.floor(rand() * 3 * H));
  const others = Array.from({ length: Math.floor(rand() * 30) }, () => ({ at: new Date(now.getTime() - Math.floor(rand() * 31 * D)), responseCode: '05', approved: false }));
  const cardBrand = pick(rand, ['VISA', 'Mastercard', 'AMEX']);
  const o = order({ id: `o-${Math.floor(rand() * 1e9)}`, cardBrand, createdAt, timezoneUtcOffset: pick(rand, [-8, -5, 0, 1, 5.5, 9]), expiryDateUtc: new Date(now.getTime() + Math.floor((rand() * 25 - 1) * D)) });
  const cells = Array.from({ length: Math.floor(rand() * 200) }, () => {
    const attemptsN = 1 + Math.floor(rand() * 80);
    return { family: pick(rand, FAMILIES), brand: pick(rand, ['visa', 'mastercard', 'amex']), weekday: Math.floor(rand() * 7), hour: Math.floor(rand() * 24), bucket: Math.floor(rand() * 6), attempts: attemptsN, approvals: Math.floor(rand() * (attemptsN + 1)) };
  });
  const table = buildLearnedTable(rowsOf(cells.slice(0, cells.length / 3)), rowsOf(cells));
  const d = decline({ ...pick(rand, DECLINES), cardBrand });
  return { order: o, decline: d, attempts, cardAttempts: [...attempts, ...others], now, learned: { table, family: pick(rand, FAMILIES), bin: pick(rand, ['411111', null]) } };
}

describe('learned plans keep every rule (5,000 seeded inputs and tables)', () => {
  const rand = prng(20261128);
  const cases = Array.from({ length: 5_000 }, () => {
    const withTable = randomCase(rand);
    return { input: withTable, learned: plan(withTable), static: plan({ ...withTable, learned: null }) };
  });
  const moved = cases.filter((c) => c.learned.action === 'retry' && c.static.action === 'retry' && c.learned.at.getTime() !== c.static.at.getTime());

  it('moves some retries and keeps others', () => {
    expect(moved.length).toBeGreaterThan(500);
    expect(cases.filter((c) => c.learned.action === 'retry').length - moved.length).toBeGreaterThan(500);
  });

  it('stops exactly when the static model stops, and never moves a retry more than a day', () => {
    for (const c of cases) {
      expect(c.learned.action).toBe(c.static.action);
      if (c.learned.action === 'stop') expect(c.learned).toEqual(c.static);
      if (c.learned.action !== 'retry' || c.static.action !== 'retry') continue;
      expect(Math.abs(c.learned.at.getTime() - c.static.at.getTime())).toBeLessThanOrEqual(24 * H);
      if (c.input.decline.softKind === 'temporary') expect(c.learned).toEqual(c.static);
      else expect(c.learned.evidence).toMatch(c.learned.at.getTime() === c.static.at.getTime() ? /^(prior|learned)/ : /^learned/);
    }
  });

  it('plans after now, before the expiry margin, after the minimum gap and the advised delay, within the caps', () => {
    for (const { input: i, learned: p } of cases) {
      if (p.action !== 'retry') continue;
      const at = p.at.getTime();
      const anchor = Math.max(i.order.createdAt.getTime(), ...i.attempts.map((a) => a.at.getTime()));
      expect(at).toBeGreaterThanOrEqual(i.now.getTime() + timing.minLeadMs);
      expect(at).toBeLessThan(i.order.expiryDateUtc.getTime() - timing.expiryMarginMs);
      const kind = i.decline.softKind;
      if (kind === 'funds') expect(at - anchor).toBeGreaterThanOrEqual(timing.fundsMinGapMs);
      if (kind === 'generic') expect(at - anchor).toBeGreaterThanOrEqual(timing.genericMinGapMs);
      const advice = i.decline.advice;
      if (advice?.action === 'retry_after') expect(at - anchor).toBeGreaterThanOrEqual(advice.delayMs ?? 0);
      expect(capsAllowAttempt({ cardBrand: i.order.cardBrand, cardAttempts: i.cardAttempts, now: p.at })).toBe(true);
    }
  });

  it('is a pure function of its input', () => {
    for (const c of cases.slice(0, 1_000)) expect(plan(c.input)).toEqual(c.learned);
  });
});

describe('the learned counts\' writer', () => {
  const row = (over: Partial<OutcomeRow> = {}): OutcomeRow => ({ merchantId: 'm1', family: 'do_not_honor', brand: 'visa', bin: '411111', weekday: 2, localHour: 16, dayBucket: 1, attempts: 1, approvals: 0, ...over });

  it('sums outcomes per cell and writes them in one statement per flush', async () => {
    // Each statement's rows travel as one JSON parameter: keep that parameter.
    const statements: string[] = [];
    const db = { execute: async (q: SQL) => void statements.push((q.queryChunks as unknown[]).find((c): c is string => typeof c === 'string' && c.startsWith('[{'))!) } as unknown as Db;
    const counter = outcomeCounter(db, new ManualClock(0), silentLog);
    counter.add([row(), row({ approvals: 1 }), row({ localHour: 8 })]);
    counter.add([row()]);
    await counter.flush();
    expect(statements).toHaveLength(1);
    const cells = JSON.parse(statements[0]!) as OutcomeRow[];
    expect(cells.map((c) => [c.localHour, c.attempts, c.approvals])).toEqual([[16, 3, 1], [8, 1, 0]]);
    await counter.flush(); // nothing new: no statement
    expect(statements).toHaveLength(1);
  });

  it('logs a failed write and drops it, so memory stays bounded', async () => {
    const warnings: unknown[] = [];
    const log = { ...silentLog, warn: (o: unknown) => void warnings.push(o) } as unknown as typeof silentLog;
    let fail = true;
    const writes: number[] = [];
    const db = { execute: async () => { if (fail) throw new Error('connection lost'); writes.push(1); } } as unknown as Db;
    const counter = outcomeCounter(db, new ManualClock(0), log);
    counter.add([row()]);
    await counter.flush();
    expect(warnings).toHaveLength(1);
    fail = false;
    await counter.flush();
    expect(writes).toHaveLength(0); // the failed cells were not kept
  });
});
