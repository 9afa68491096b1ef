// Date parsing: ISO 8601 and RFC 1123 in, one canonical UTC form out.
import { describe, it, expect } from 'vitest';
import { toCalendarDate, toUtcDateTime } from '../../../src/domain/index.ts';
import { isCanonicalDate, isCanonicalDateTime } from '../../../src/domain/dates.ts';

describe('toUtcDateTime', () => {
  it('agrees with Date for a spread of instants', () => {
    for (let ms = Date.UTC(1999, 0, 1); ms < Date.UTC(2031, 0, 1); ms += 7_777_777_777) {
      const iso = new Date(ms).toISOString();
      expect(toUtcDateTime(iso)).toBe(iso);
      expect(toUtcDateTime(new Date(ms).toUTCString())).toBe(new Date(Math.floor(ms / 1000) * 1000).toISOString());
    }
  });

  it('reads leap days only in leap years', () => {
    expect(toUtcDateTime('2028-02-29T00:00:00Z')).toBe('2028-02-29T00:00:00.000Z');
    expect(toUtcDateTime('2000-02-29T00:00:00Z')).toBe('2000-02-29T00:00:00.000Z');
    expect(toUtcDateTime('2100-02-29T00:00:00Z')).toBeUndefined();
  });

  it('crosses a day, month and year boundary with an offset', () => {
    expect(toUtcDateTime('2026-12-31T23:30:00-01:00')).toBe('2027-01-01T00:30:00.000Z');
    expect(toUtcDateTime('2026-01-01T00:30:00+0100')).toBe('2025-12-31T23:30:00.000Z');
    expect(toUtcDateTime('2026-01-01T00:30:00+01')).toBe('2025-12-31T23:30:00.000Z');
  });

  it('ignores the weekday of an RFC 1123 date, and accepts it without one', () => {
    expect(toUtcDateTime('Fri, 01 Dec 2026 00:00:00 GMT')).toBe('2026-12-01T00:00:00.000Z');
    expect(toUtcDateTime('1 Dec 2026 00:00:00 GMT')).toBe('2026-12-01T00:00:00.000Z');
  });

  it.each(['', 'now', '2026-12-01T00:00:00ZZ', '2026-12-01T00:60:00Z', '2026-12-01T00:00:60Z', '999-01-01', '2026-1-01', '2026-12-01T00:00:00+25:00', 'Tue, 01 Foo 2026 00:00:00 GMT', '2026-12-01T00:00:00 PST'])('rejects %j', (text) => {
    expect(toUtcDateTime(text)).toBeUndefined();
  });

  it('the canonical checks accept only the canonical forms, and only real dates', () => {
    expect(isCanonicalDateTime('2026-12-01T00:00:00.000Z')).toBe(true);
    expect(isCanonicalDateTime('2026-12-01T00:00:00Z')).toBe(false);
    expect(isCanonicalDateTime('2026-11-31T00:00:00.000Z')).toBe(false);
    expect(isCanonicalDateTime('2026-12-01T23:59:59.99xZ')).toBe(false);
    expect(isCanonicalDate('2026-12-01')).toBe(true);
    expect(isCanonicalDate('2026-12-32')).toBe(false);
    expect(isCanonicalDate('0999-12-01')).toBe(false);
  });
});

describe('toCalendarDate', () => {
  it.each([
    ['1990-05-01', '1990-05-01'],
    ['1990-05-01T00:00:00Z', '1990-05-01'],
    ['1990-05-01T23:00:00-05:00', '1990-05-01'],
    ['Tue, 01 May 1990 00:00:00 GMT', '1990-05-01'],
  ])('%j → %s', (text, date) => {
    expect(toCalendarDate(text)).toBe(date);
  });

  it('rejects an impossible date', () => {
    expect(toCalendarDate('1990-04-31')).toBeUndefined();
  });
});
