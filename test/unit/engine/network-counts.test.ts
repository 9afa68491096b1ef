// What the card's windows count (docs/engine.md, "What the card's windows count"): each
// order's original decline and the merchant's earlier tries beside rescued's attempts, Visa's
// dated limit (15, then 20 with CIT and MIT apart), the first authorization of an order that
// Visa does not count as a reattempt, and the Mastercard advice of the original decline.
import { describe, expect, it } from 'vitest';
import { plan } from '../../../src/engine/planner.ts';
import type { AttemptRecord, Plan } from '../../../src/engine/plan-types.ts';
import { defaultRules, limitInForce } from '../../../src/engine/rules.ts';
import { engineRules } from '../../../src/engine/index.ts';
import { declineRecords } from '../../../src/engine/history.ts';
import { D, H, decline, input, order } from './fixtures.ts';

const VISA_2026 = new Date('2026-04-25T00:00:00Z').getTime();

function retryAt(p: Plan): number {
  if (p.action !== 'retry') throw new Error(`expected a retry, got stop ${p.reason} ${p.detail ?? ''}`);
  return p.at.getTime();
}

/** n declines on the card in the hour before `nowMs`, of one origin and initiator. */
function history(n: number, nowMs: number, over: Partial<AttemptRecord> = {}): AttemptRecord[] {
  return Array.from({ length: n }, (_, i) => ({ at: new Date(nowMs - H + i * 60_000), responseCode: '05', approved: false, ...over }));
}

/** A Visa MIT order that came in at `iso`, generic decline, 20 days to go. */
function visaOrder(iso: string) {
  return order({ createdAt: new Date(iso), expiryDateUtc: new Date(Date.parse(iso) + 20 * D) });
}

/** Held by the Visa cap: the next try waits about 30 days for the window (or stops). */
const held = (p: Plan, nowMs: number) => p.action === 'stop' ? p.reason === 'visa_reattempt_cap' : p.at.getTime() > nowMs + 25 * D;

describe('Visa: the dated reattempt table', () => {
  it('picks 15 before 25 April 2026 and 20 from that day, by the date of the plan', () => {
    for (const [iso, limit] of [['2026-04-20T12:00:00Z', 15], ['2026-04-24T23:00:00Z', 15], ['2026-04-25T00:30:00Z', 20], ['2026-11-28T12:00:00Z', 20]] as const) {
      const o = visaOrder(iso);
      const now = o.createdAt.getTime();
      expect(limitInForce(defaultRules.visa.reattemptLimits, now).maxPer30Days, iso).toBe(limit);
      // One below the limit: the usual spacing; at the limit: held for the window.
      expect(retryAt(plan(input({ order: o, cardAttempts: history(limit - 1, now) }))), iso).toBeLessThan(now + 3 * D);
      expect(held(plan(input({ order: o, cardAttempts: history(limit, now) })), now), iso).toBe(true);
    }
    // The rule in force today (2026-11-28) is the default.
    expect(limitInForce(defaultRules.visa.reattemptLimits, Date.parse('2026-11-28T00:00:00Z'))).toMatchObject({ maxPer30Days: 20, separateCitMit: true });
    expect(VISA_2026).toBe(Date.parse(`${defaultRules.visa.reattemptLimits[1].fromUtc}T00:00:00Z`));
  });

  it('counts CIT and MIT reattempts apart under the 2026 rule, together before it', () => {
    const after = visaOrder('2026-11-28T12:00:00Z');
    const a = after.createdAt.getTime();
    // 20 CIT reattempts leave the MIT counter empty; 20 MIT ones fill it.
    expect(retryAt(plan(input({ order: after, cardAttempts: history(20, a, { initiator: 'CIT' }) })))).toBeLessThan(a + 3 * D);
    expect(held(plan(input({ order: after, cardAttempts: history(20, a, { initiator: 'MIT' }) })), a)).toBe(true);
    expect(held(plan(input({ order: after, cardAttempts: [...history(19, a, { initiator: 'MIT' }), ...history(10, a, { initiator: 'CIT' })] })), a)).toBe(false);
    // Before it, one counter: 10 CIT and 5 MIT reach 15.
    const before = visaOrder('2026-03-10T12:00:00Z');
    const b = before.createdAt.getTime();
    expect(held(plan(input({ order: before, cardAttempts: [...history(10, b, { initiator: 'CIT' }), ...history(5, b, { initiator: 'MIT' })] })), b)).toBe(true);
  });

  it('does not count an order\'s first authorization as a reattempt, but counts the merchant\'s earlier tries', () => {
    const o = visaOrder('2026-11-28T12:00:00Z');
    const now = o.createdAt.getTime();
    const originals = history(10, now, { origin: 'original', initial: true });
    expect(retryAt(plan(input({ order: o, cardAttempts: [...history(19, now), ...originals] })))).toBeLessThan(now + 3 * D);
    const priors = history(1, now, { origin: 'prior' });
    expect(held(plan(input({ order: o, cardAttempts: [...history(19, now), ...originals, ...priors] })), now)).toBe(true);
  });
});

describe('Mastercard: every authorization counts', () => {
  const mc = (iso: string) => order({ cardBrand: 'Mastercard', createdAt: new Date(iso), expiryDateUtc: new Date(Date.parse(iso) + 20 * D) });

  it('holds the 35-in-30-days and 20-declines-in-24-hours limits counting originals and first authorizations', () => {
    const o = mc('2026-11-28T12:00:00Z');
    const now = o.createdAt.getTime();
    const d = decline({ responseCode: '05', cardBrand: 'Mastercard' });
    // 20 original declines within the day (each an order's first authorization): the 24-hour cap.
    const originals = history(20, now, { origin: 'original', initial: true });
    const p = plan(input({ order: o, decline: d, cardAttempts: originals }));
    expect(retryAt(p)).toBeGreaterThan(now - H + 24 * H);
    // 35 authorizations spread over 30 days, 10 of them approved (not declines): the 30-day cap.
    const spread = Array.from({ length: 35 }, (_, i): AttemptRecord => ({ at: new Date(now - 29 * D + i * 19 * H), approved: i % 4 === 0, origin: i % 2 ? 'original' : 'rescued', initial: i % 2 === 1 }));
    const q = plan(input({ order: o, decline: d, cardAttempts: spread }));
    expect(retryAt(q)).toBeGreaterThan(now - 29 * D + 30 * D);
  });
});

describe('Mastercard advice of the original decline and of the merchant\'s earlier tries', () => {
  it('runs a MAC 24–30 delay from the original decline\'s own time, not its arrival', () => {
    const arrived = new Date('2026-11-28T12:00:00Z');
    const o = order({ cardBrand: 'Mastercard', createdAt: arrived, declinedAt: new Date(arrived.getTime() - 30 * 60_000), expiryDateUtc: new Date(arrived.getTime() + 20 * D) });
    // MAC 24 (one hour) on an issuer-unavailable decline: due an hour after the decline, half an hour after its arrival.
    const p = plan(input({ order: o, decline: decline({ responseCode: '91', cardBrand: 'Mastercard', merchantAdviceCode: '24' }) }));
    expect(retryAt(p)).toBe(arrived.getTime() + 30 * 60_000);
    for (const [mac, days] of [['26', 2], ['28', 6], ['30', 10]] as const) {
      const old = order({ cardBrand: 'Mastercard', createdAt: arrived, declinedAt: new Date(arrived.getTime() - D), expiryDateUtc: new Date(arrived.getTime() + 20 * D) });
      const at = retryAt(plan(input({ order: old, decline: decline({ responseCode: '05', cardBrand: 'Mastercard', merchantAdviceCode: mac }) })));
      expect(at, mac).toBeGreaterThanOrEqual(arrived.getTime() - D + days * D);
    }
  });

  it.each(['03', '21'])('ends the order when one of the merchant\'s earlier tries got MAC %s', (mac) => {
    const o = order({ cardBrand: 'Mastercard' });
    const now = o.createdAt.getTime();
    const prior: AttemptRecord = { at: new Date(now - 2 * D), responseCode: '51', adviceCode: mac, approved: false, origin: 'prior' };
    const p = plan(input({ order: o, decline: decline({ responseCode: '51', cardBrand: 'Mastercard' }), cardAttempts: [prior] }));
    expect(p).toEqual({ action: 'stop', reason: 'mastercard_advice_do_not_retry', detail: `card received MAC ${mac} on the merchant's earlier attempt of ${prior.at.toISOString()}` });
    // Older than 30 days, or on a Visa card, it says nothing about this order.
    expect(plan(input({ order: o, decline: decline({ responseCode: '51', cardBrand: 'Mastercard' }), cardAttempts: [{ ...prior, at: new Date(now - 31 * D) }] })).action).toBe('retry');
    expect(plan(input({ order: order(), cardAttempts: [prior] })).action).toBe('retry');
  });

  it('holds every order of the card until a MAC 24–30 delay that another order received runs out, unless an approval followed (seeded)', () => {
    let seed = 24;
    const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
    for (let i = 0; i < 200; i++) {
      const mac = String(24 + Math.floor(rand() * 7));
      const delay = (defaultRules.mastercard.adviceDelaysMs as Readonly<Record<string, number>>)[mac] as number;
      const o = order({ cardBrand: 'Mastercard', expiryDateUtc: new Date(Date.parse('2026-03-10T14:00:00Z') + 25 * D) });
      const now = o.createdAt.getTime();
      // Another order of the card was declined with the advice somewhere in the last delay.
      const at = now - Math.floor(rand() * delay);
      const other: AttemptRecord = { at: new Date(at), responseCode: '51', adviceCode: mac, approved: false, origin: rand() < 0.5 ? 'rescued' : 'original' };
      const p = plan(input({ order: o, decline: decline({ responseCode: '51', cardBrand: 'Mastercard' }), cardAttempts: [other] }));
      expect(retryAt(p), `MAC ${mac} ${i}`).toBeGreaterThanOrEqual(at + delay);
      // An approval of the card after the advice lifts it: the plan is the one without it.
      const approved: AttemptRecord = { at: new Date(at + 1), approved: true };
      const free = retryAt(plan(input({ order: o, decline: decline({ responseCode: '51', cardBrand: 'Mastercard' }), cardAttempts: [approved] })));
      expect(retryAt(plan(input({ order: o, decline: decline({ responseCode: '51', cardBrand: 'Mastercard' }), cardAttempts: [other, approved] }))), `lifted ${i}`).toBe(free);
    }
  });
});

describe('the card order\'s records', () => {
  const row = {
    id: 'o', merchantId: 'm', cardToken: 't', kind: 'MIT' as const, cardBrand: 'VISA', createdAt: new Date('2026-11-28T12:00:00Z'),
    declinedAt: new Date('2026-11-28T11:00:00Z'), declineCode: '51', declineSource: 'iso8583', declineAdvice: null,
    priorAttempts: [['2026-11-27T10:00:00.000Z', '41', '21'], ['2026-11-28T13:00:00.000Z', '5', null]],
  };

  it('marks the earliest as the order\'s first authorization, clamps none past the arrival, and reads codes through their source', () => {
    const records = declineRecords(row);
    expect(records.map((r) => [r.at.toISOString(), r.origin, r.initial ?? false, r.networkCode, r.adviceCode, r.initiator])).toEqual([
      ['2026-11-27T10:00:00.000Z', 'prior', true, '41', '21', 'MIT'],
      ['2026-11-28T12:00:00.000Z', 'prior', false, '05', null, 'MIT'],
      ['2026-11-28T11:00:00.000Z', 'original', false, '51', null, 'MIT'],
    ]);
    // A gateway's own code is never read as an ISO one.
    expect(declineRecords({ ...row, declineSource: 'stripe', declineCode: '14', priorAttempts: null })[0]!.networkCode).toBeNull();
    // A row written before the column: the arrival stands in for the decline's time.
    expect(declineRecords({ ...row, declinedAt: null, priorAttempts: null })).toMatchObject([{ at: row.createdAt, origin: 'original', initial: true }]);
  });
});

describe('the configuration of the tables', () => {
  const base = { maxAttemptsPerOrder: 15 };

  it('uses the built-in tables unless told otherwise', () => {
    const r = engineRules(base, undefined);
    expect(r.visa.reattemptLimits).toEqual(defaultRules.visa.reattemptLimits);
    expect(r.mastercard.attemptLimits).toEqual(defaultRules.mastercard.attemptLimits);
  });

  it('replaces a table, or sets one Visa limit for every date keeping the counters', () => {
    const visa = [{ fromUtc: '2027-01-01', maxPer30Days: 18, separateCitMit: false }];
    const mastercard = [{ fromUtc: '2023-11-01', maxAttemptsPer30Days: 30, maxDeclinesPer24Hours: 10 }];
    const r = engineRules({ ...base, visaReattemptLimits: visa, mastercardAttemptLimits: mastercard }, undefined);
    expect(r.visa.reattemptLimits).toEqual(visa);
    expect(r.mastercard.attemptLimits).toEqual(mastercard);
    const single = engineRules({ ...base, visaMaxReattemptsPer30Days: 2 }, undefined);
    expect(single.visa.reattemptLimits.map((x) => [x.fromUtc, x.maxPer30Days, x.separateCitMit])).toEqual([['2021-04-01', 2, false], ['2026-04-25', 2, true]]);
    const o = visaOrder('2026-11-28T12:00:00Z');
    expect(held(plan(input({ order: o, cardAttempts: history(2, o.createdAt.getTime()), rules: single })), o.createdAt.getTime())).toBe(true);
  });
});
