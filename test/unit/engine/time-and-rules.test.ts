import { describe, expect, it } from 'vitest';
import { calendarOf, hash32, lastBusinessDay, utcOffsetMs } from '../../../src/calendar.ts';
import { isPayday } from '../../../src/calendar.ts';
import { defaultRules, limitInForce, resolveRules } from '../../../src/engine/rules.ts';
import { normaliseBrand } from '../../../src/declines/brands.ts';

describe('timezoneUtcOffset', () => {
  it.each([
    [-5, -300], [1, 60], [9.5, 570], [5.75, 345], [14, 840], [-12, -720], [0, 0],
    [570, 570], [-300, -300], [345, 345], [-720, -720], [840, 840],
    [900, 0], [-15, -15], [Number.NaN, 0], [null, 0], [undefined, 0],
  ])('%s → %s minutes', (sent, minutes) => {
    expect(utcOffsetMs(sent as number)).toBe(minutes * 60_000);
  });
});

describe('paydays', () => {
  const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`);
  it('knows the last business day of a month', () => {
    expect(lastBusinessDay(2026, 4)).toBe(29); // May 2026: the 31st is a Sunday
    expect(lastBusinessDay(2026, 1)).toBe(27); // February 2026: the 28th is a Saturday
    expect(lastBusinessDay(2026, 5)).toBe(30); // June 2026: Tuesday
  });
  it.each([
    ['2026-04-01', true], ['2026-04-15', true], ['2026-03-13', true], ['2026-03-31', true],
    ['2026-03-10', false], ['2026-03-30', false], ['2026-05-29', true], ['2026-05-31', false],
    // The 25th and the 28th; a pay date on a weekend is paid the Friday before, not on the day.
    ['2026-03-25', true], ['2026-09-28', true], ['2026-03-26', false],
    ['2026-03-01', false], ['2026-03-15', false], ['2026-02-27', true], ['2026-10-25', false], ['2026-10-23', true],
  ])('%s payday: %s', (iso, expected) => {
    expect(isPayday(day(iso), defaultRules.timing)).toBe(expected);
  });
});

describe('rules', () => {
  it('keeps the network defaults', () => {
    // Visa: 15 until 25 April 2026, then 20 with CIT and MIT counted apart (the rule in force today).
    expect(limitInForce(defaultRules.visa.reattemptLimits, Date.parse('2026-04-24T23:59:59Z'))).toEqual({ fromUtc: '2021-04-01', maxPer30Days: 15, separateCitMit: false });
    expect(limitInForce(defaultRules.visa.reattemptLimits, Date.parse('2026-11-28T00:00:00Z'))).toEqual({ fromUtc: '2026-04-25', maxPer30Days: 20, separateCitMit: true });
    expect(limitInForce(defaultRules.mastercard.attemptLimits, Date.parse('2026-11-28T00:00:00Z'))).toMatchObject({ maxAttemptsPer30Days: 35, maxDeclinesPer24Hours: 20 });
    expect(defaultRules.mastercard).toMatchObject({ stopAdvice: ['01', '03', '04', '21'] });
    expect(defaultRules.mastercard.adviceDelaysMs['26']).toBe(2 * 86_400_000);
  });
  it('lays overrides over the defaults without touching them', () => {
    const limits = [{ fromUtc: '2020-01-01', maxPer30Days: 12, separateCitMit: true }];
    const r = resolveRules({ visa: { reattemptLimits: limits }, timing: { paydayWeekdays: [4, 5] }, mastercard: { adviceDelaysMs: { '31': 1 } } });
    expect(r.visa).toEqual({ reattemptLimits: limits, category1: 'never' });
    expect(r.timing.paydayWeekdays).toEqual([4, 5]);
    expect(r.timing.morningStartLocalHour).toBe(8);
    expect(r.mastercard.adviceDelaysMs).toEqual({ '31': 1 });
    expect(defaultRules.visa.reattemptLimits).toHaveLength(2);
  });
  it('lets the weekend rule be turned off: the pay date itself is then the payday', () => {
    const timing = resolveRules({ timing: { paydayWeekendToFriday: false, paydayWeekdays: [] } }).timing;
    expect(isPayday(Date.parse('2026-03-15T00:00:00Z'), timing)).toBe(true);
    expect(isPayday(Date.parse('2026-03-13T00:00:00Z'), timing)).toBe(false);
  });
});

describe('helpers', () => {
  it('reads the calendar like Date does, 1900–2200', () => {
    for (let ms = Date.UTC(1900, 0, 1); ms < Date.UTC(2200, 0, 1); ms += 86_400_000) {
      const d = new Date(ms);
      const c = calendarOf(ms);
      if (c.year !== d.getUTCFullYear() || c.month !== d.getUTCMonth() || c.day !== d.getUTCDate()) {
        expect(c, d.toISOString()).toEqual({ year: d.getUTCFullYear(), month: d.getUTCMonth(), day: d.getUTCDate() });
      }
    }
  });
  it('knows the last business day of every month, 2000–2100', () => {
    for (let y = 2000; y < 2100; y++) {
      for (let m = 0; m < 12; m++) {
        const d = new Date(Date.UTC(y, m + 1, 0));
        while (d.getUTCDay() === 0 || d.getUTCDay() === 6) d.setUTCDate(d.getUTCDate() - 1);
        if (lastBusinessDay(y, m) !== d.getUTCDate()) expect(lastBusinessDay(y, m), `${y}-${m + 1}`).toBe(d.getUTCDate());
      }
    }
  });
  it('hashes stably', () => {
    expect(hash32('order-1')).toBe(hash32('order-1'));
    expect(hash32('order-1')).not.toBe(hash32('order-2'));
  });
  it.each([['VISA', 'visa'], ['Mastercard', 'mastercard'], ['MC', 'mastercard'], ['AMEX', 'amex'], ['American Express', 'amex'], ['', 'unknown'], ['JCB', 'other']])(
    'brand %s → %s',
    (s, b) => expect(normaliseBrand(s)).toBe(b),
  );
});
