// The merchant model: counters → the planner's weights, smoothed towards the global prior.
import { describe, expect, it } from 'vitest';
import { buildMerchantModel, PRIOR_STRENGTH } from '../../../src/engine/model.ts';

const hour = (h: number, approvals: number) => ({ dimension: 'hour', bucket: String(h), approvals, total: approvals });
const day = (d: number, approvals: number) => ({ dimension: 'day', bucket: String(d), approvals, total: approvals });
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('buildMerchantModel', () => {
  it('is flat without data (weights of 1)', () => {
    const m = buildMerchantModel([]);
    expect(m.hourWeights).toHaveLength(24);
    expect(m.dayOfMonthWeights).toHaveLength(31);
    for (const w of [...m.hourWeights, ...m.dayOfMonthWeights]) expect(w).toBeCloseTo(1, 10);
  });

  it("follows the merchant's approvals more as they grow, and averages 1", () => {
    const few = buildMerchantModel([hour(9, 5)]);
    const many = buildMerchantModel([hour(9, 5000)]);
    expect(few.hourWeights[9]).toBeGreaterThan(1);
    expect(many.hourWeights[9]).toBeGreaterThan(few.hourWeights[9]!);
    expect(many.hourWeights[9]).toBeLessThan(24);
    expect(mean(many.hourWeights)).toBeCloseTo(1, 10);
    expect(few.hourWeights[3]).toBeCloseTo(few.hourWeights[20]!, 10);
  });

  it('pulls a merchant with few records towards the global pattern, not towards flat', () => {
    const global = [day(1, 10_000), day(15, 10_000)];
    const m = buildMerchantModel([day(20, 2)], global);
    expect(m.dayOfMonthWeights[0]).toBeGreaterThan(m.dayOfMonthWeights[19]!);
    expect(m.dayOfMonthWeights[14]).toBeGreaterThan(m.dayOfMonthWeights[5]!);
    // With far more own records than the prior's strength, its own pattern wins.
    const own = buildMerchantModel([day(20, PRIOR_STRENGTH * 100)], global);
    expect(own.dayOfMonthWeights[19]).toBeGreaterThan(own.dayOfMonthWeights[0]!);
  });

  it('ignores buckets outside the range and other dimensions', () => {
    const m = buildMerchantModel([hour(24, 100), day(0, 100), day(32, 100), { dimension: 'bin', bucket: '411111', approvals: 100, total: 100 }]);
    for (const w of [...m.hourWeights, ...m.dayOfMonthWeights]) expect(w).toBeCloseTo(1, 10);
  });
});
