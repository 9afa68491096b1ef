// The rescue-quality simulation's judge and world (test/bench/rescue/): the independent
// network-rule checker counts what the rules forbid and nothing else, and the issuer model is
// a pure function of the seed, so every strategy meets the same payers.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkTrials, type Rule } from '../../bench/rescue/checker.ts';
import type { Trial } from '../../bench/rescue/fixed.ts';
import { answer, type AttemptLog } from '../../bench/rescue/issuer.ts';
import { drawPayers, type Payer } from '../../bench/rescue/payers.ts';
import { loadPopulation } from '../../bench/rescue/population.ts';

const H = 3_600_000;
const D = 24 * H;
const T0 = Date.parse('2026-06-01T12:00:00Z');
const POPULATIONS = ['population.json', 'population-b.json'].map((f) => join(import.meta.dirname, '../../bench/rescue', f));

function trial(brand: Payer['brand'], originalCode: string, attempts: Array<[offsetMs: number, code: string, advice?: string]>): Trial {
  const payer = { brand, originalCode, declineAtMs: T0 } as Payer;
  const log: AttemptLog[] = attempts.map(([dt, code, advice]) => ({ atMs: T0 + dt, approved: code === '00', code, ...(advice ? { advice } : {}) }));
  return { payer, attempts: log };
}

const count = (t: Trial, rule: Rule) => checkTrials([t]).byRule[rule];
const every = (n: number, gapMs: number, code = '05', advice?: string) => Array.from({ length: n }, (_, i): [number, string, string?] => [(i + 1) * gapMs, code, advice]);

describe('network-rule checker', () => {
  it('counts every Visa reattempt after a category 1 code, the original decline included', () => {
    expect(count(trial('visa', '41', every(3, D)), 'visaCategory1Retried')).toBe(3);
    expect(count(trial('visa', '05', [[D, '05'], [2 * D, '43'], [3 * D, '05']]), 'visaCategory1Retried')).toBe(1);
    expect(count(trial('visa', '59', every(3, D)), 'visaCategory1Retried')).toBe(0); // 59 is category 2
  });

  it('allows 15 Visa reattempts in any 30 days and counts each one past them', () => {
    expect(count(trial('visa', '51', every(15, D)), 'visaOver15In30Days')).toBe(0);
    expect(count(trial('visa', '51', every(17, D)), 'visaOver15In30Days')).toBe(2);
    // 16 reattempts two days apart: never 16 inside one 30-day window.
    expect(count(trial('visa', '51', every(16, 2 * D)), 'visaOver15In30Days')).toBe(0);
  });

  it('counts Mastercard attempts within 30 days after MAC 03 or 21, and those before a MAC 24–30 delay', () => {
    expect(count(trial('mastercard', '05', [[D, '05', '03'], [2 * D, '05'], [31 * D + H, '05']]), 'mastercardMac0321Retried')).toBe(1);
    expect(count(trial('mastercard', '05', [[D, '05', '21'], [2 * D, '05']]), 'mastercardMac0321Retried')).toBe(1);
    expect(count(trial('mastercard', '51', [[D, '51', '25'], [D + 23 * H, '51'], [D + 48 * H, '51']]), 'mastercardMacDelayBroken')).toBe(1);
    expect(count(trial('mastercard', '51', [[D, '51', '30'], [5 * D, '51'], [11 * D + H, '51']]), 'mastercardMacDelayBroken')).toBe(1);
  });

  it('counts Mastercard attempts past 35 in 30 days and declines past 20 in 24 hours, the original included', () => {
    expect(count(trial('mastercard', '05', every(34, 20 * H)), 'mastercardOver35In30Days')).toBe(0);
    expect(count(trial('mastercard', '05', every(35, 19 * H)), 'mastercardOver35In30Days')).toBe(1);
    expect(count(trial('mastercard', '05', every(19, H)), 'mastercardOver20DeclinesIn24h')).toBe(0);
    expect(count(trial('mastercard', '05', every(20, H)), 'mastercardOver20DeclinesIn24h')).toBe(1);
  });

  it('holds American Express to no rule, and counts an attempt that breaks two rules once in the total', () => {
    expect(checkTrials([trial('amex', '41', every(40, H))]).attempts).toBe(0);
    const both = checkTrials([trial('visa', '14', every(16, H))]);
    expect(both.byRule.visaCategory1Retried).toBe(16);
    expect(both.byRule.visaOver15In30Days).toBe(1);
    expect(both.attempts).toBe(16);
  });
});

describe.each(POPULATIONS)('issuer model (%s)', (file) => {
  const pop = loadPopulation(file);
  const ctx = { pop, seed: 7 };
  const payers = drawPayers(pop, 7, 600);

  it('draws the same payers and answers for the same seed, other payers for another', () => {
    expect(drawPayers(pop, 7, 600)).toEqual(payers);
    expect(drawPayers(pop, 8, 50)).not.toEqual(payers.slice(0, 50));
    for (const p of payers.slice(0, 200)) {
      const at = p.declineAtMs + 3 * D;
      expect(answer(ctx, p, at, [])).toEqual(answer(ctx, p, at, []));
    }
  });

  it('never approves a hard decline, and approves a funds decline only while the money is there', () => {
    for (const p of payers) {
      const b = p.behaviour;
      for (let at = p.declineAtMs + H; at < p.expiryMs; at += 11 * H) {
        const a = answer(ctx, p, at, []);
        if (b.kind === 'never') expect(a).toMatchObject({ approved: false, code: b.code });
        if (b.kind === 'funds' && at >= p.outageUntilMs) expect(a.approved).toBe(b.windows.some(([from, to]) => at >= from && at < to));
      }
    }
  });

  it('declines before an advised Mastercard delay, and past the issuer velocity limit', () => {
    const mc = payers.find((p) => p.brand === 'mastercard' && p.behaviour.kind === 'approve' && p.velocityLimit === Infinity)!;
    const at = mc.outageUntilMs + H;
    expect(answer(ctx, mc, at, [])).toEqual({ approved: true, code: '00' });
    expect(answer(ctx, mc, at, [{ atMs: at - H, approved: false, code: '91', advice: '26' }])).toMatchObject({ approved: false, advice: '26' });
    const strict = { ...mc, velocityLimit: 3 };
    const prior = [1, 2].map((k) => ({ atMs: mc.declineAtMs + k * D, approved: false, code: '05' }));
    expect(answer(ctx, strict, at + 3 * D, prior)).toEqual({ approved: false, code: '05', advice: '03' });
  });
});

describe('population files', () => {
  it('refuse a parameter with neither a source nor an assumption', () => {
    const raw = JSON.parse(readFileSync(POPULATIONS[0]!, 'utf8')) as { parameters: Record<string, Record<string, unknown>> };
    delete raw.parameters.paydayCovers!.assumption;
    const file = join(mkdtempSync(join(tmpdir(), 'rescued-pop-')), 'bad.json');
    writeFileSync(file, JSON.stringify(raw));
    expect(() => loadPopulation(file)).toThrow(/paydayCovers/);
  });
});
