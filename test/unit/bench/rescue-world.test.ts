// The random-world rescue evaluation (test/bench/rescue.bench.ts): its worlds and issuers share
// no code with the planner, its checker counts what the networks count (originals and the
// merchant's own retries included), its compliant baselines break no rule, and its statistics
// are right. Tiny populations and a few seeds, so it runs in CI; the bench itself does not.
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answer, type CardEvent } from '../../bench/rescue/bank.ts';
import { BASELINES, runBaseline } from '../../bench/rescue/baselines.ts';
import type { Card } from '../../bench/rescue/cards.ts';
import { checkCard, type Rule } from '../../bench/rescue/network-check.ts';
import { drawPopulation } from '../../bench/rescue/orders.ts';
import { compare, interval, seedFigures, type SeedFigures } from '../../bench/rescue/seeds-report.ts';
import { drawWorld, type World } from '../../bench/rescue/world.ts';

const BENCH = join(import.meta.dirname, '../../bench/rescue');
const ROOT = resolve(import.meta.dirname, '../../..');
const H = 3_600_000;
const D = 24 * H;
const T0 = Date.parse('2027-01-12T12:00:00Z');

/** Every file `file` imports, transitively (relative imports followed; packages listed as they are). */
function importGraph(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|(?:^|\n)\s*import\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    const spec = (m[1] ?? m[2] ?? m[3])!;
    if (spec.startsWith('.')) importGraph(resolve(dirname(file), spec), seen);
    else seen.add(`package:${spec}`);
  }
  return seen;
}

const fromSrc = (files: Set<string>) => [...files].filter((f) => !f.startsWith('package:') && relative(ROOT, f).startsWith('src/'));

describe('the world, issuer and checker files', () => {
  it.each(['world.ts', 'cards.ts', 'bank.ts', 'orders.ts', 'spare-cards.ts', 'network-check.ts', 'baselines.ts', 'seeds-report.ts'])('%s imports nothing from src/, directly or not', (name) => {
    const graph = importGraph(join(BENCH, name));
    expect(fromSrc(graph)).toEqual([]);
    expect([...graph].filter((f) => f.startsWith('package:'))).toEqual([]);
  });

  it('the import graph walk finds src/ where it is imported (the engine driver)', () => {
    expect(fromSrc(importGraph(join(BENCH, 'engine-seeds.ts')))).toContain(join(ROOT, 'src/engine/index.ts'));
  });
});

describe('random worlds', () => {
  const worlds = Array.from({ length: 60 }, (_, i) => drawWorld(i + 1));

  it('are a pure function of the seed, and differ between seeds', () => {
    expect(JSON.stringify(drawPopulation(drawWorld(7), 40))).toBe(JSON.stringify(drawPopulation(drawWorld(7), 40)));
    expect(JSON.stringify(drawWorld(7))).not.toBe(JSON.stringify(drawWorld(8)));
  });

  it('spread over wide distributions: deposit hours all day, every pay calendar, with and without velocity blocks and escalation', () => {
    const hours = worlds.map((w) => w.deposit.fromHour);
    expect(Math.min(...hours)).toBeLessThan(3);
    expect(Math.max(...hours)).toBeGreaterThan(21);
    for (const kind of ['weekly', 'biweekly', 'semimonthly', 'monthly'] as const) {
      expect(worlds.some((w) => Object.entries(w.pay.shares).every(([k, v]) => k === kind || v < w.pay.shares[kind]))).toBe(true);
    }
    expect(worlds.some((w) => w.velocity.share === 0) && worlds.some((w) => w.velocity.share > 0.4)).toBe(true);
    expect(worlds.some((w) => w.escalation.after === Infinity) && worlds.some((w) => w.escalation.after <= 4)).toBe(true);
    expect(new Set(worlds.flatMap((w) => w.pay.monthly)).size).toBeGreaterThan(15);
  });

  it('"deposits-9-15" lands every deposit between 09:00 and 15:00 local', () => {
    for (let seed = 1; seed <= 5; seed++) expect(drawWorld(seed, 'deposits-9-15').deposit).toEqual({ fromHour: 9, widthHours: 6 });
  });

  it('hand over orders with the merchant history the request carries: declined retries before the hand-over, advice on Mastercard only, several orders per card', () => {
    const pops = [1, 2, 3, 4].map((s) => drawPopulation(drawWorld(s), 150));
    const orders = pops.flatMap((p) => p.orders);
    expect(orders).toHaveLength(600);
    expect(orders.some((o) => o.prior.length > 0)).toBe(true);
    expect(orders.some((o) => o.originalAdvice)).toBe(true);
    for (const o of orders) {
      expect(o.prior.every((p) => !p.approved && p.atMs > o.declineAtMs && p.atMs < o.handoverAtMs)).toBe(true);
      if (o.originalAdvice) expect(o.card.brand).toBe('mastercard');
      expect(o.expiryMs - o.declineAtMs).toBe(30 * D);
    }
    const perCard = new Map<Card, number>();
    for (const o of orders) perCard.set(o.card, (perCard.get(o.card) ?? 0) + 1);
    expect(Math.max(...perCard.values())).toBeGreaterThan(1);
  });
});

describe('the simulated issuer', () => {
  const world: World = { ...drawWorld(3), escalation: { after: 3, code: '59', macAfter: 2 } };
  const card = (over: Partial<Card>): Card => ({
    seed: 3, index: 0, brand: 'visa', offsetHours: 0, reportedOffsetHours: 0, priceCents: 1000, reason: 'funds', outageUntilMs: T0, outageCode: '91',
    advice: 'none', velocityLimit: Infinity, replacedAtMs: Infinity, replacedCode: '14', declinesAtMs: [T0],
    behaviour: { kind: 'funds', shortCode: '51', money: [{ fromMs: T0 + D, toMs: T0 + 2 * D, surplusCents: 1500 }] }, ...over,
  });
  const declined = (atMs: number, code = '51', advice?: string): CardEvent => ({ atMs, approved: false, code, ...(advice ? { advice } : {}), amount: 1000, order: 0, by: 'strategy' });

  it('approves funds only while the money is there and enough of it: a larger amount or money already spent is declined', () => {
    const c = card({});
    expect(answer(world, c, 0, 1000, T0 + 12 * H, []).approved).toBe(false);
    expect(answer(world, c, 0, 1000, T0 + 30 * H, []).approved).toBe(true);
    expect(answer(world, c, 0, 2000, T0 + 30 * H, []).approved).toBe(false);
    const spent: CardEvent = { atMs: T0 + 25 * H, approved: true, code: '00', amount: 1000, order: 1, by: 'strategy' };
    expect(answer(world, c, 0, 1000, T0 + 30 * H, [spent]).approved).toBe(false);
    expect(answer(world, c, 0, 1000, T0 + 3 * D, []).approved).toBe(false);
  });

  it('escalates repeated declines: 51 becomes the world\'s 59, Mastercard 02 becomes 03', () => {
    const history = [declined(T0 - 2 * H), declined(T0 - H), declined(T0)];
    expect(answer(world, card({}), 0, 1000, T0 + H, history.slice(0, 2)).code).toBe('51');
    expect(answer(world, card({}), 0, 1000, T0 + H, history).code).toBe('59');
    const mc = card({ brand: 'mastercard', advice: '02' });
    expect(answer(world, mc, 0, 1000, T0 + H, history.slice(0, 1)).advice).toBe('02');
    expect(answer(world, mc, 0, 1000, T0 + H, history.slice(0, 2)).advice).toBe('03');
  });

  it('never approves a replaced card, a hard decline or a card past its velocity limit', () => {
    expect(answer(world, card({ replacedAtMs: T0 + 20 * H }), 0, 1000, T0 + 30 * H, [])).toEqual({ approved: false, code: '14' });
    expect(answer(world, card({ behaviour: { kind: 'never', code: '46', advice: '03' }, brand: 'mastercard' }), 0, 1000, T0 + 30 * H, [])).toEqual({ approved: false, code: '46', advice: '03' });
    expect(answer(world, card({ velocityLimit: 2 }), 0, 1000, T0 + 30 * H, [declined(T0), declined(T0 + H)]).approved).toBe(false);
  });
});

describe('the network-rule checker counts originals and the merchant\'s own retries', () => {
  const ev = (by: CardEvent['by'], atMs: number, code = '05', advice?: string, order = 0): CardEvent => ({ atMs, approved: code === '00', code, ...(advice ? { advice } : {}), amount: 1000, order, by });
  const count = (brand: string, events: CardEvent[], rule: Rule) => checkCard(brand, events).byRule[rule];
  const retries = (by: CardEvent['by'], n: number, from: number, gap: number, order = 0) => Array.from({ length: n }, (_, i) => ev(by, from + i * gap, '05', undefined, order));

  it('Visa: 20 reattempts per card in 30 days, the merchant\'s retries in, originals out; past 15 is a margin apart', () => {
    const originals = [ev('original', T0), ev('original', T0 + H, '05', undefined, 1)];
    expect(count('visa', [...originals, ...retries('merchant', 5, T0 + 2 * H, H), ...retries('strategy', 15, T0 + D, D)], 'visaOver20In30Days')).toBe(0);
    expect(count('visa', [...originals, ...retries('merchant', 6, T0 + 2 * H, H), ...retries('strategy', 15, T0 + D, D)], 'visaOver20In30Days')).toBe(1);
    expect(checkCard('visa', [...originals, ...retries('merchant', 5, T0 + 2 * H, H), ...retries('strategy', 15, T0 + D, D)]).visaOver15In30Days).toBe(5);
  });

  it('Visa: a reattempt of an order after its category 1 code, not another order\'s', () => {
    expect(count('visa', [ev('original', T0, 'R1'), ev('strategy', T0 + D)], 'visaCategory1')).toBe(1);
    expect(count('visa', [ev('original', T0, '14'), ev('original', T0 + H, '51', undefined, 1), ev('strategy', T0 + D, '51', undefined, 1)], 'visaCategory1')).toBe(0);
  });

  it('Mastercard: 35 authorizations in 30 days and 20 declines in 24 h, every order\'s original and the merchant\'s retries counted', () => {
    const three = [0, 1, 2].flatMap((o) => [ev('original', T0 + o * H, '51', undefined, o), ...retries('merchant', 2, T0 + o * H + 10 * 60_000, 60_000, o)]);
    expect(count('mastercard', [...three, ...retries('strategy', 26, T0 + D, D / 2)], 'mastercardOver35In30Days')).toBe(0);
    expect(count('mastercard', [...three, ...retries('strategy', 27, T0 + D, D / 2)], 'mastercardOver35In30Days')).toBe(1);
    expect(count('mastercard', [...three, ...retries('strategy', 11, T0 + 4 * H, 60_000)], 'mastercardOver20DeclinesIn24h')).toBe(0);
    expect(count('mastercard', [...three, ...retries('strategy', 12, T0 + 4 * H, 60_000)], 'mastercardOver20DeclinesIn24h')).toBe(1);
  });

  it('Mastercard: advice 03/21 on an original forbids every attempt on the card for 30 days; 24–30 delay it', () => {
    expect(count('mastercard', [ev('original', T0, '05', '21'), ev('strategy', T0 + 29 * D), ev('strategy', T0 + 31 * D)], 'mastercardMac0321')).toBe(1);
    expect(count('mastercard', [ev('original', T0, '05', '03'), ev('original', T0 + D, '51', undefined, 1), ev('strategy', T0 + 2 * D, '51', undefined, 1)], 'mastercardMac0321')).toBe(1);
    expect(count('mastercard', [ev('original', T0, '51', '27'), ev('strategy', T0 + 3 * D), ev('strategy', T0 + 4 * D + H)], 'mastercardMacDelay')).toBe(1);
    expect(count('amex', [ev('original', T0, '05', '03'), ev('strategy', T0 + D)], 'mastercardMac0321')).toBe(0);
  });
});

describe('baselines', () => {
  const pops = [11, 12, 13].map((s) => drawPopulation(drawWorld(s), 120));

  it('the code-aware baselines break no rule; the naive ones do, on the same orders', () => {
    for (const pop of pops) {
      for (const b of BASELINES) {
        const f = seedFigures(pop, runBaseline(pop, b));
        if (b.compliant) expect(f.violations.attempts, `${b.name}, seed ${pop.world.seed}`).toBe(0);
      }
    }
    const naive = pops.map((pop) => seedFigures(pop, runBaseline(pop, BASELINES.find((b) => !b.compliant)!)).violations.attempts);
    expect(naive.reduce((s, n) => s + n, 0)).toBeGreaterThan(0);
  });

  it('the code-aware baselines never retry an order whose original said "never" (Visa category 1, Mastercard 03/21)', () => {
    for (const pop of pops) {
      const attempts = runBaseline(pop, BASELINES[0]!);
      for (const o of pop.orders.filter((x) => ['R1', '14', '43', '46'].includes(x.originalCode) || x.originalAdvice === '03' || x.originalAdvice === '21')) {
        expect(attempts.get(o.index)).toEqual([]);
      }
    }
  });
});

describe('figures over seeds', () => {
  it('counts recoveries and violations per seed, and which violations need the request\'s merchant history to avoid', () => {
    const pop = drawPopulation(drawWorld(5), 200);
    const advised = pop.orders.find((o) => o.originalAdvice === '03' || o.originalAdvice === '21')!;
    expect(advised).toBeDefined();
    // One attempt a day after the hand-over on that order alone, approved or not as the issuer says.
    const at = advised.handoverAtMs + D;
    const a = answer(pop.world, advised.card, advised.index, advised.amount, at, pop.history.get(advised.card)!);
    const f = seedFigures(pop, new Map([[advised.index, [{ atMs: at, ...a, amount: advised.amount, order: advised.index, by: 'strategy' as const }]]]));
    expect(f.attempts).toBe(1);
    expect(f.recoveredPct).toBe(a.approved ? 100 / 200 : 0);
    expect(f.violations.byRule.mastercardMac0321).toBe(1);
    expect(f.blindViolations).toBe(0);
  });

  it('gives the mean and the 95 % interval of the mean (Student\'s t)', () => {
    expect(interval([5, 5, 5])).toEqual({ mean: 5, lo: 5, hi: 5 });
    const i = interval([1, 2, 3, 4]);
    expect(i.mean).toBe(2.5);
    // sd = 1.291, t(3) = 3.182: half width 2.054
    expect(i.hi - i.mean).toBeCloseTo(3.182 * (Math.sqrt(5 / 3) / 2), 6);
  });

  it('says plainly where rescued loses, wins or ties against a baseline', () => {
    const f = (recoveredPct: number, attemptsPerRecovery: number): SeedFigures => ({ orders: 100, recoveredPct, amountPct: recoveredPct, attempts: 0, attemptsPerRecovery, violations: checkCard('amex', []), blindViolations: 0, blindByRule: checkCard('amex', []) });
    const rescued = { name: 'rescued', seeds: [f(40, 3), f(42, 3), f(41, 3)] };
    const base = { name: 'daily', seeds: [f(45, 10), f(46, 10), f(44, 10)] };
    const tie = { name: 'tie', seeds: [f(41, 3), f(40, 3), f(42, 3)] };
    const verdicts = compare(rescued, [base, tie]).map((c) => `${c.baseline} ${c.metric}: ${c.verdict}`);
    expect(verdicts).toEqual([
      'daily recovered orders: loses', 'daily recovered amount: loses', 'daily attempts per recovery: wins',
      'tie recovered orders: no clear difference', 'tie recovered amount: no clear difference', 'tie attempts per recovery: no clear difference',
    ]);
  });
});
