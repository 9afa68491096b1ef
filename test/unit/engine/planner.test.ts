import { describe, expect, it } from 'vitest';
import { capsAllowAttempt, plan } from '../../../src/engine/planner.ts';
import type { Plan } from '../../../src/engine/plan-types.ts';
import { resolveRules } from '../../../src/engine/rules.ts';
import { D, H, countSince, decline, declinedAt, input, isLocalPayday, localClock, order } from './fixtures.ts';

function retryAt(p: Plan): Date {
  if (p.action !== 'retry') throw new Error(`expected a retry, got stop ${p.reason}`);
  return p.at;
}

describe('stops', () => {
  it('never retries a hard decline', () => {
    const o = order({ cardBrand: 'AMEX' });
    expect(plan(input({ order: o, decline: decline({ responseCode: '41', cardBrand: 'AMEX' }) }))).toMatchObject({ action: 'stop', reason: 'hard_decline' });
  });

  it('stops on Visa category 1 with its own reason', () => {
    const p = plan(input({ decline: decline({ responseCodeSource: 'Stripe', responseCode: 'do_not_honor', networkCode: '14', cardBrand: 'VISA' }) }));
    expect(p).toMatchObject({ action: 'stop', reason: 'visa_category_1' });
  });

  it.each(['01', '03', '04', '21'])('stops on Mastercard advice %s', (mac) => {
    const o = order({ cardBrand: 'Mastercard' });
    const p = plan(input({ order: o, decline: decline({ responseCode: '51', cardBrand: 'Mastercard', merchantAdviceCode: mac }) }));
    // No attempt of ours yet: the advice is the original decline's, and the reason says so.
    expect(p).toMatchObject({ action: 'stop', reason: 'mastercard_advice_do_not_retry', detail: `MAC ${mac} on the original decline` });
    const after = plan(input({ order: o, attempts: [declinedAt(o.createdAt.getTime() + H, '51', mac)], now: new Date(o.createdAt.getTime() + 2 * H), decline: decline({ responseCode: '51', cardBrand: 'Mastercard', merchantAdviceCode: mac }) }));
    expect(after).toMatchObject({ action: 'stop', reason: 'mastercard_advice_do_not_retry', detail: `MAC ${mac}` });
  });

  it('stops an MIT whose decline needs the customer', () => {
    expect(plan(input({ decline: decline({ responseCode: '1A', cardBrand: 'VISA' }) }))).toMatchObject({ reason: 'authentication_required_mit' });
    expect(plan(input({ decline: decline({ responseCode: '54', cardBrand: 'VISA' }) }))).toMatchObject({ reason: 'card_data_required_mit', detail: 'expired_card' });
    expect(plan(input({ decline: decline({ responseCode: 'N7', cardBrand: 'VISA' }) }))).toMatchObject({ reason: 'card_data_required_mit' });
  });

  it('stops at the per-order attempt cap (15)', () => {
    const o = order({ expiryDateUtc: new Date(Date.UTC(2026, 3, 30)) });
    const attempts = Array.from({ length: 15 }, (_, i) => declinedAt(o.createdAt.getTime() + (i + 1) * D));
    const p = plan(input({ order: o, attempts, cardAttempts: attempts, now: new Date(o.createdAt.getTime() + 16 * D) }));
    expect(p).toMatchObject({ action: 'stop', reason: 'order_attempt_cap' });
  });

  it('stops once an attempt was approved', () => {
    const o = order();
    const attempts = [{ at: new Date(o.createdAt.getTime() + H), responseCode: '00', approved: true }];
    expect(plan(input({ order: o, attempts, cardAttempts: attempts }))).toMatchObject({ reason: 'already_approved' });
  });

  it('stops another order of a card that got MAC 03 within 30 days', () => {
    const o = order({ cardBrand: 'Mastercard' });
    const other = declinedAt(o.createdAt.getTime() - 5 * D, '05', '03');
    const p = plan(input({ order: o, decline: decline({ responseCode: '05', cardBrand: 'Mastercard' }), cardAttempts: [other] }));
    expect(p).toMatchObject({ reason: 'mastercard_advice_do_not_retry' });
  });

  it('stops another order of a Visa card that got a category 1 code, unless approved since', () => {
    const o = order();
    const lost = declinedAt(o.createdAt.getTime() - 3 * D, '41');
    expect(plan(input({ order: o, cardAttempts: [lost] }))).toMatchObject({ reason: 'visa_category_1' });
    const approved = { at: new Date(o.createdAt.getTime() - 2 * D), responseCode: '00', approved: true };
    expect(plan(input({ order: o, cardAttempts: [lost, approved] })).action).toBe('retry');
  });
});

describe('Mastercard advice delays', () => {
  it.each([
    ['24', 1 * H], ['25', 24 * H], ['26', 2 * D], ['27', 4 * D], ['28', 6 * D], ['29', 8 * D], ['30', 10 * D],
  ])('MAC %s waits at least its delay after the decline', (mac, delay) => {
    const o = order({ cardBrand: 'Mastercard', expiryDateUtc: new Date(Date.UTC(2026, 3, 30)) });
    for (const code of ['91', '51', '05']) {
      const at = retryAt(plan(input({ order: o, decline: decline({ responseCode: code, cardBrand: 'Mastercard', merchantAdviceCode: mac }) })));
      expect(at.getTime() - o.createdAt.getTime()).toBeGreaterThanOrEqual(delay);
    }
  });

  it('MAC 25 counts from the latest attempt', () => {
    const o = order({ cardBrand: 'Mastercard' });
    const last = o.createdAt.getTime() + 3 * D;
    const p = plan(input({
      order: o,
      decline: decline({ responseCode: '96', cardBrand: 'Mastercard', merchantAdviceCode: '25' }),
      attempts: [declinedAt(last, '96', '25')],
      cardAttempts: [declinedAt(last, '96', '25')],
      now: new Date(last + 60_000),
    }));
    expect(retryAt(p).getTime()).toBeGreaterThanOrEqual(last + 24 * H);
  });

  it('stops when the advised delay runs past the expiry', () => {
    const o = order({ cardBrand: 'Mastercard', expiryDateUtc: new Date(Date.UTC(2026, 2, 12)) });
    const p = plan(input({ order: o, decline: decline({ responseCode: '05', cardBrand: 'Mastercard', merchantAdviceCode: '30' }) }));
    expect(p).toMatchObject({ action: 'stop', reason: 'expiry_reached' });
  });
});

describe('Mastercard 24-hour decline cap', () => {
  const o = order({ cardBrand: 'Mastercard', expiryDateUtc: new Date(Date.UTC(2026, 2, 20)) });
  const now = o.createdAt.getTime();
  // 20 declines on this card at this merchant over the last 10 hours, from other orders.
  const card = Array.from({ length: 20 }, (_, i) => declinedAt(now - 10 * H + i * 30 * 60_000));
  const oldest = now - 10 * H;

  it('plans after the window frees instead of stopping', () => {
    const p = plan(input({ order: o, decline: decline({ responseCode: '91', cardBrand: 'Mastercard' }), cardAttempts: card }));
    const at = retryAt(p).getTime();
    expect(at).toBeGreaterThan(oldest + 24 * H);
    expect(countSince(card, at - 24 * H, at, true)).toBeLessThan(20);
    expect(capsAllowAttempt({ cardBrand: 'Mastercard', cardAttempts: card, now: new Date(now) })).toBe(false);
    expect(capsAllowAttempt({ cardBrand: 'Mastercard', cardAttempts: card, now: new Date(at) })).toBe(true);
  });

  it('stops with the cap as reason when the window frees only after expiry', () => {
    const soon = order({ cardBrand: 'Mastercard', expiryDateUtc: new Date(now + 12 * H) });
    const p = plan(input({ order: soon, decline: decline({ responseCode: '91', cardBrand: 'Mastercard' }), cardAttempts: card }));
    expect(p).toEqual({ action: 'stop', reason: 'mastercard_decline_cap_24h' });
  });

  it('approved attempts do not count as declines', () => {
    const approved = card.map((a) => ({ ...a, approved: true }));
    const p = plan(input({ order: o, decline: decline({ responseCode: '91', cardBrand: 'Mastercard' }), cardAttempts: approved }));
    expect(retryAt(p).getTime()).toBeLessThan(now + H);
  });
});

describe('Visa 30-day reattempt cap', () => {
  it('waits for the window, or stops with visa_reattempt_cap when it frees after expiry', () => {
    const o = order();
    const now = o.createdAt.getTime();
    const card = Array.from({ length: 15 }, (_, i) => declinedAt(now - 25 * D + i * D));
    const at = retryAt(plan(input({ order: o, cardAttempts: card }))).getTime();
    expect(at).toBeGreaterThan(now - 25 * D + 30 * D);
    expect(countSince(card, at - 30 * D, at)).toBeLessThan(15);
    const soon = order({ expiryDateUtc: new Date(now + 2 * D) });
    expect(plan(input({ order: soon, cardAttempts: card }))).toEqual({ action: 'stop', reason: 'visa_reattempt_cap' });
  });

  it('reads N from the rules (a table that allows 20 on the day)', () => {
    const o = order();
    const now = o.createdAt.getTime();
    const card = Array.from({ length: 15 }, (_, i) => declinedAt(now - 20 * H + i * H));
    const rules = resolveRules({ visa: { reattemptLimits: [{ fromUtc: '2020-01-01', maxPer30Days: 20, separateCitMit: false }] } });
    // Not held back until the window frees (25 days on): the next try keeps the usual spacing.
    expect(retryAt(plan(input({ order: o, cardAttempts: card, rules }))).getTime()).toBeLessThan(now + 3 * D);
  });
});

describe('insufficient funds: payday mornings in the payer’s time', () => {
  // Offsets as clients send them: hours, fractional hours, minutes.
  const offsets: [sent: number, minutes: number][] = [[-5, -300], [1, 60], [9.5, 570], [570, 570], [-300, -300], [14, 840], [-12, -720], [5.75, 345]];
  const nows = ['2026-03-10T14:00:00Z', '2026-03-13T02:00:00Z', '2026-04-29T23:30:00Z', '2026-05-30T08:00:00Z', '2026-12-31T18:00:00Z'];

  it.each(offsets)('offset %s lands on a local payday between 08:00 and 10:00', (sent, minutes) => {
    for (const iso of nows) {
      const createdAt = new Date(iso);
      const o = order({ createdAt, timezoneUtcOffset: sent, expiryDateUtc: new Date(createdAt.getTime() + 30 * D) });
      const p = plan(input({ order: o, decline: decline({ responseCode: '51', cardBrand: 'VISA' }) }));
      expect(p).toMatchObject({ action: 'retry', reason: 'payday_morning' });
      const at = retryAt(p);
      const local = localClock(at, minutes);
      expect(isLocalPayday(local), `${iso} ${sent} → ${at.toISOString()}`).toBe(true);
      expect(local.hour).toBeGreaterThanOrEqual(8);
      expect(local.hour).toBeLessThan(10);
      expect(at.getTime() - createdAt.getTime()).toBeGreaterThanOrEqual(12 * H);
      expect(at.getTime() - createdAt.getTime()).toBeLessThan(9 * D);
    }
  });

  it('falls back to the latest morning before expiry when no payday fits', () => {
    // Monday 2026-03-02 10:00 UTC; expiry Thursday: no payday morning (next is Friday 6th).
    const createdAt = new Date('2026-03-02T10:00:00Z');
    const o = order({ createdAt, expiryDateUtc: new Date('2026-03-05T12:00:00Z') });
    const p = plan(input({ order: o, decline: decline({ responseCode: '51', cardBrand: 'VISA' }) }));
    expect(p).toEqual({ action: 'retry', at: new Date('2026-03-05T08:00:00Z'), reason: 'last_chance_before_expiry' });
  });
});

describe('temporary issuer errors: soon, with growing gaps', () => {
  it('retries within minutes, then at growing gaps capped at a day', () => {
    const o = order({ expiryDateUtc: new Date(Date.UTC(2026, 3, 30)) });
    const attempts: ReturnType<typeof declinedAt>[] = [];
    let now = o.createdAt.getTime();
    const gaps: number[] = [];
    for (let i = 0; i < 7; i++) {
      const p = plan(input({ order: o, decline: decline({ responseCode: '91', cardBrand: 'VISA' }), attempts, cardAttempts: attempts, now: new Date(now) }));
      expect(p).toMatchObject({ action: 'retry', reason: 'temporary_backoff' });
      const at = retryAt(p).getTime();
      gaps.push(at - now);
      attempts.push(declinedAt(at, '91'));
      now = at;
    }
    expect(gaps[0]).toBeLessThanOrEqual(15 * 60_000);
    for (let i = 1; i < gaps.length; i++) expect(gaps[i]).toBeGreaterThanOrEqual(gaps[i - 1] as number);
    expect(gaps[2]).toBeLessThanOrEqual(4 * H);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(24 * H);
  });
});

describe('generic soft declines: every two days at most, the allowance spread to the deadline', () => {
  // Sunday 1 March 2026, 14:00 UTC: no payday within a day of the slot two days later.
  const sunday = new Date('2026-03-01T14:00:00Z');

  it('plans two days after the last attempt, within the spread', () => {
    const o = order({ createdAt: sunday, expiryDateUtc: new Date(sunday.getTime() + 30 * D) });
    const p = plan(input({ order: o }));
    expect(p).toMatchObject({ action: 'retry', reason: 'daily_spacing' });
    const at = retryAt(p).getTime();
    expect(at - o.createdAt.getTime()).toBeGreaterThanOrEqual(48 * H);
    expect(at - o.createdAt.getTime()).toBeLessThan(49 * H);
  });

  it('is deterministic, and spreads different orders', () => {
    const a = plan(input({ order: order({ id: 'a' }) }));
    expect(plan(input({ order: order({ id: 'a' }) }))).toEqual(a);
    const times = new Set(['a', 'b', 'c', 'd', 'e', 'f'].map((id) => retryAt(plan(input({ order: order({ id, createdAt: sunday }) }))).getTime()));
    expect(times.size).toBeGreaterThan(1);
  });

  it('moves to a payday morning within half its gap, for the 05s that are a shortage of money', () => {
    // Tuesday 10 March 14:00 UTC, 31 days to the deadline (the gap is its two-day cap): the slot
    // is Thursday 14:00; Friday 13th 08:00 is within a day of it.
    const o = order({ id: undefined, expiryDateUtc: new Date(Date.UTC(2026, 3, 10, 14)) });
    const p = plan(input({ order: o }));
    expect(p).toEqual({ action: 'retry', at: new Date('2026-03-13T08:00:00Z'), reason: 'payday_morning' });
    const off = resolveRules({ timing: { genericPaydayPull: 0 } });
    expect(plan(input({ order: o, rules: off }))).toEqual({ action: 'retry', at: new Date('2026-03-12T14:00:00Z'), reason: 'daily_spacing' });
  });

  it('moves to the merchant’s best local hour within the nudge window', () => {
    const hourWeights = Array.from({ length: 24 }, (_, h) => (h === 20 ? 5 : 1));
    const model = { hourWeights, dayOfMonthWeights: Array.from({ length: 31 }, () => 1) };
    // Offset +3 → the slot at 17:xx local; the best hour 20 is 3 h later.
    const o = order({ createdAt: sunday, timezoneUtcOffset: 3, expiryDateUtc: new Date(sunday.getTime() + 30 * D) });
    const at = retryAt(plan(input({ order: o, model })));
    expect(localClock(at, 180).hour).toBe(20);
  });

  it('spends the order’s 15 attempts across its window, the last one close to the deadline', () => {
    const o = order({ createdAt: sunday, expiryDateUtc: new Date(sunday.getTime() + 30 * D) });
    const deadline = o.expiryDateUtc.getTime() - 30 * 60_000;
    for (const rules of [resolveRules({ timing: { genericPaydayPull: 0 } }), resolveRules()]) {
      const attempts: ReturnType<typeof declinedAt>[] = [];
      let now = o.createdAt.getTime();
      for (;;) {
        const p = plan(input({ order: o, attempts, cardAttempts: attempts, now: new Date(now), rules }));
        if (p.action === 'stop') {
          expect(p.reason).toBe('order_attempt_cap');
          break;
        }
        const at = retryAt(p).getTime();
        expect(at - now).toBeGreaterThanOrEqual(6 * H);
        expect(at - now).toBeLessThanOrEqual(3 * D);
        expect(at).toBeLessThan(deadline);
        attempts.push(declinedAt(at));
        now = at;
      }
      expect(attempts).toHaveLength(15);
      expect(deadline - now).toBeLessThan(2 * D);
    }
  });

  it('keeps the two-day gap for the last attempt the card allows, rather than waiting for the deadline', () => {
    const o = order({ createdAt: sunday, expiryDateUtc: new Date(sunday.getTime() + 30 * D) });
    const attempts = Array.from({ length: 14 }, (_, i) => declinedAt(sunday.getTime() + (i + 1) * H));
    const now = new Date(sunday.getTime() + 14 * H);
    // One attempt left under Visa's 15 per 30 days: its even share of the window is 29 days, so
    // the two-day cap on the gap decides (a hold lifts within days, not at the deadline).
    const p = plan(input({ order: o, attempts, cardAttempts: attempts, now }));
    expect(p).toMatchObject({ action: 'retry', reason: 'daily_spacing' });
    const at = retryAt(p).getTime();
    expect(at - attempts[13]!.at.getTime()).toBeGreaterThanOrEqual(2 * D);
    expect(at - attempts[13]!.at.getTime()).toBeLessThan(2 * D + H);
  });

  it('shares a short window among the attempts left, never closer than the minimum gap', () => {
    const o = order({ expiryDateUtc: new Date(Date.UTC(2026, 2, 11, 0, 0)) });
    const p = plan(input({ order: o }));
    expect(p).toMatchObject({ action: 'retry', reason: 'daily_spacing' });
    expect(retryAt(p).getTime() - o.createdAt.getTime()).toBeGreaterThanOrEqual(6 * H);
    expect(retryAt(p).getTime()).toBeLessThan(Date.UTC(2026, 2, 10, 23, 30));
  });

  it('stops when even the minimum gap does not fit before expiry', () => {
    const o = order({ expiryDateUtc: new Date(Date.UTC(2026, 2, 10, 18, 0)) });
    expect(plan(input({ order: o }))).toEqual({ action: 'stop', reason: 'expiry_reached' });
  });
});

describe('merchant model', () => {
  it('aims the payday morning at the merchant’s best morning hour', () => {
    const hourWeights = Array.from({ length: 24 }, (_, h) => (h === 8 ? 3 : 1));
    const model = { hourWeights, dayOfMonthWeights: Array.from({ length: 31 }, () => 1) };
    const o = order({ timezoneUtcOffset: -5 });
    const at = retryAt(plan(input({ order: o, model, decline: decline({ responseCode: '51', cardBrand: 'VISA' }) })));
    expect(localClock(at, -300).hour).toBe(8);
  });

  it('ignores a model of the wrong shape', () => {
    const o = order();
    const bad = { hourWeights: [1, 2, 3], dayOfMonthWeights: [] };
    expect(plan(input({ order: o, model: bad }))).toEqual(plan(input({ order: o })));
  });
});
