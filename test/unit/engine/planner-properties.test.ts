// Property-style checks over many seeded pseudo-random inputs: whatever the decline, history,
// brand, timezone and deadline, a plan never breaks a rule.
import { describe, expect, it } from 'vitest';
import { capsAllowAttempt, plan } from '../../../src/engine/planner.ts';
import type { AttemptRecord, PlanInput } from '../../../src/engine/plan-types.ts';
import { defaultRules, limitInForce } from '../../../src/engine/rules.ts';
import { D, H, countSince, decline, order, pick, prng } from './fixtures.ts';

const BRANDS = ['VISA', 'Mastercard', 'AMEX', 'Discover', undefined];
const OFFSETS = [-12, -5, -3.5, 0, 1, 5.75, 9.5, 14, -300, 570, 345, 600];
const DECLINES = [
  { responseCode: '05' }, { responseCode: '51' }, { responseCode: '91' }, { responseCode: '96' }, { responseCode: '61' },
  { responseCode: '41' }, { responseCode: '14' }, { responseCode: '54' }, { responseCode: 'NA', responseCodeSource: 'NA' },
  { responseCode: '51', merchantAdviceCode: '25' }, { responseCode: '05', merchantAdviceCode: '03' }, { responseCode: '91', merchantAdviceCode: '24' },
  { responseCode: '51', merchantAdviceCode: '30' }, { responseCode: '05', merchantAdviceCode: '02' },
  { responseCodeSource: 'Stripe', responseCode: 'insufficient_funds' }, { responseCodeSource: 'NMI', responseCode: '264' },
];

function randomInput(rand: () => number): PlanInput {
  const createdAt = new Date(Date.UTC(2026, 0, 1) + Math.floor(rand() * 365 * D));
  const nAttempts = Math.floor(rand() * 10);
  const attempts: AttemptRecord[] = [];
  let t = createdAt.getTime();
  for (let i = 0; i < nAttempts; i++) {
    t += Math.floor(rand() * 2 * D) + 60_000;
    attempts.push({ at: new Date(t), responseCode: pick(rand, ['05', '51', '91']), approved: false });
  }
  const now = new Date(t + Math.floor(rand() * 3 * H));
  const others: AttemptRecord[] = Array.from({ length: Math.floor(rand() * 40) }, () => ({
    at: new Date(now.getTime() - Math.floor(rand() * 31 * D)),
    responseCode: pick(rand, ['05', '51', '91', '96']),
    approved: rand() < 0.05,
  }));
  const cardBrand = pick(rand, BRANDS);
  const o = order({
    id: `o-${Math.floor(rand() * 1e9)}`,
    cardBrand,
    createdAt,
    timezoneUtcOffset: pick(rand, OFFSETS),
    expiryDateUtc: new Date(now.getTime() + Math.floor((rand() * 21 - 1) * D)),
  });
  const model = rand() < 0.3 ? { hourWeights: Array.from({ length: 24 }, () => rand()), dayOfMonthWeights: Array.from({ length: 31 }, () => rand()) } : undefined;
  const d = decline({ ...pick(rand, DECLINES), cardBrand });
  return { order: o, decline: d, attempts, cardAttempts: [...attempts, ...others], model, now };
}

function anchorOf(input: PlanInput): number {
  return Math.max(input.order.createdAt.getTime(), ...input.attempts.map((a) => a.at.getTime()));
}

describe('planner properties (20,000 seeded inputs)', () => {
  const rand = prng(20260310);
  const inputs = Array.from({ length: 20_000 }, () => randomInput(rand));
  const plans = inputs.map((input) => ({ input, plan: plan(input) }));

  it('produces both retries and stops', () => {
    const retries = plans.filter((p) => p.plan.action === 'retry').length;
    expect(retries).toBeGreaterThan(2_000);
    expect(plans.length - retries).toBeGreaterThan(2_000);
  });

  it('never plans at or past expiry, and always after now', () => {
    for (const { input, plan: p } of plans) {
      if (p.action !== 'retry') continue;
      expect(p.at.getTime()).toBeLessThan(input.order.expiryDateUtc.getTime());
      expect(p.at.getTime()).toBeGreaterThan(input.now.getTime());
    }
  });

  it('never retries a hard decline, a stop advice or a customer-data decline', () => {
    for (const { input, plan: p } of plans) {
      const mcStop = input.decline.advice?.network === 'mastercard' && ['01', '03', '04', '21'].includes(input.decline.advice.code);
      if (input.decline.class !== 'soft' || mcStop) expect(p.action).toBe('stop');
    }
  });

  it('waits at least the advised delay', () => {
    for (const { input, plan: p } of plans) {
      const advice = input.decline.advice;
      if (p.action !== 'retry' || advice?.action !== 'retry_after') continue;
      expect(p.at.getTime() - anchorOf(input)).toBeGreaterThanOrEqual(advice.delayMs ?? 0);
    }
  });

  it('keeps every card within its network caps at the planned moment', () => {
    for (const { input, plan: p } of plans) {
      if (p.action !== 'retry') continue;
      const at = p.at.getTime();
      const brand = input.order.cardBrand;
      const in30 = countSince(input.cardAttempts, at - 30 * D, at);
      // The limits in force when the plan was made (the dated tables only ever loosened).
      const visa = limitInForce(defaultRules.visa.reattemptLimits, input.now.getTime());
      const mastercard = limitInForce(defaultRules.mastercard.attemptLimits, input.now.getTime());
      if (brand === 'VISA' || brand === undefined) expect(in30).toBeLessThan(visa.maxPer30Days);
      if (brand === 'Mastercard' || brand === undefined) {
        expect(in30).toBeLessThan(mastercard.maxAttemptsPer30Days);
        expect(countSince(input.cardAttempts, at - 24 * H, at, true)).toBeLessThan(mastercard.maxDeclinesPer24Hours);
      }
      expect(input.attempts.length).toBeLessThan(defaultRules.maxAttemptsPerOrder);
      expect(capsAllowAttempt({ cardBrand: brand, cardAttempts: input.cardAttempts, now: p.at })).toBe(true);
    }
  });

  it('is a pure function of its input', () => {
    for (const { input, plan: p } of plans.slice(0, 2_000)) expect(plan(input)).toEqual(p);
  });
});

describe('one Visa card, several orders, run to the end', () => {
  // A card with a monthly and two weekly orders declined with insufficient funds, every
  // attempt declined: the runner re-checks the caps when it claims an attempt, as the
  // attempt stage must. No 30-day window may ever hold more than Visa's limit in force in May
  // 2026 (20, the dated table's 2026 row).
  it('never exceeds the per-card 30-day cap', () => {
    const start = Date.UTC(2026, 4, 1, 9);
    const orders = [0, 3, 9, 12, 20].map((day, i) =>
      order({ id: `card-order-${i}`, createdAt: new Date(start + day * D), expiryDateUtc: new Date(start + (day + 25) * D), timezoneUtcOffset: -5 }),
    );
    const card: AttemptRecord[] = [];
    const own = new Map<string, AttemptRecord[]>(orders.map((o) => [o.id as string, []]));
    const next = new Map<string, number>(orders.map((o) => [o.id as string, o.createdAt.getTime()]));
    const d = decline({ responseCode: '51', cardBrand: 'VISA' });
    for (let step = 0; step < 500 && next.size > 0; step++) {
      const [id, now] = [...next.entries()].sort((a, b) => a[1] - b[1])[0] as [string, number];
      const o = orders.find((x) => x.id === id)!;
      const attempts = own.get(id)!;
      const due = attempts.length > 0 || now > o.createdAt.getTime();
      if (due && capsAllowAttempt({ cardBrand: 'VISA', cardAttempts: card, now: new Date(now) })) {
        const a = { at: new Date(now), responseCode: '51', approved: false };
        attempts.push(a);
        card.push(a);
        expect(countSince(card, now - 30 * D, now)).toBeLessThanOrEqual(limitInForce(defaultRules.visa.reattemptLimits, now).maxPer30Days);
      }
      const p = plan({ order: o, decline: d, attempts, cardAttempts: card, now: new Date(now) });
      if (p.action === 'stop') next.delete(id);
      else next.set(id, p.at.getTime());
    }
    expect(next.size).toBe(0);
    expect(card.length).toBeGreaterThan(20); // the cap was reached and waited out, not avoided
  });
});
