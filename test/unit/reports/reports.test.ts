// The pure parts of the recovery report: `since`, money in major units, folding grouped rows
// into figures (what "recovered" and the rate count), the day series, and the CSV.
import { describe, expect, it } from 'vitest';
import { parseSince } from '../../../src/reports/since.ts';
import { majorUnits, plainMajorUnits } from '../../../src/reports/money.ts';
import { byBrand, byReason, ordersByState, overall, rate } from '../../../src/reports/figures.ts';
import { dayRows, daySpan, MAX_DAYS_AHEAD, MIN_DAYS } from '../../../src/reports/recovery.ts';
import { seeded } from '../../helpers/seeded.ts';
import { reportCsv } from '../../../src/reports/render.ts';
import type { FigureRow } from '../../../src/reports/sql/order-figures.ts';
import type { RecoveryReport } from '../../../src/reports/schema.ts';

const NOW = new Date('2026-11-20T12:00:00Z');

const row = (over: Partial<FigureRow>): FigureRow => ({
  set: 'overall', status: null, declineSource: null, declineCode: null, cardBrand: null, merchantId: null, mid: null, merchantName: null, currency: 'USD',
  orders: 0, recovered: 0, lost: 0, cancelled: 0, recoveredAmount: 0, refundedAmount: 0, lostAmount: 0, ...over,
});

describe('report since', () => {
  it('takes a time, a date, an RFC 1123 time or a duration back from now', () => {
    expect(parseSince('2026-11-01T00:00:00Z', NOW)?.toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(parseSince('2026-11-01T02:00:00+02:00', NOW)?.toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(parseSince('2026-11-01', NOW)?.toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(parseSince('Sun, 01 Nov 2026 00:00:00 GMT', NOW)?.toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(parseSince('30d', NOW)?.toISOString()).toBe('2026-10-21T12:00:00.000Z');
    expect(parseSince('24h', NOW)?.toISOString()).toBe('2026-11-19T12:00:00.000Z');
    expect(parseSince('90m', NOW)?.toISOString()).toBe('2026-11-20T10:30:00.000Z');
    expect(parseSince(undefined, NOW)).toBeUndefined();
    expect(parseSince('', NOW)).toBeUndefined();
  });

  it.each(['yesterday', '30x', '2026-13-01', '-5d', "1' or 1=1"])('refuses %j with ERR_REPORT_INVALID_QUERY on the field', (text) => {
    expect(() => parseSince(text, NOW)).toThrow(expect.objectContaining({ code: 'ERR_REPORT_INVALID_QUERY', status: 400, errors: [expect.objectContaining({ field: 'since' })] }));
  });
});

describe('money', () => {
  it('writes minor units with the currency exponent and thousands separators', () => {
    expect(majorUnits(123456789, 'USD')).toBe('1,234,567.89');
    expect(majorUnits(5, 'USD')).toBe('0.05');
    expect(majorUnits(1234, 'JPY')).toBe('1,234');
    expect(majorUnits(1234, 'BHD')).toBe('1.234');
    expect(majorUnits(-250, 'EUR')).toBe('-2.50');
    expect(plainMajorUnits(123456789, 'USD')).toBe('1234567.89');
  });
});

describe('recovery figures', () => {
  it('recovered / (recovered + lost); null while nothing is decided', () => {
    expect(rate(3, 1)).toBe(0.75);
    expect(rate(0, 0)).toBeNull();
    expect(rate(0, 4)).toBe(0);
  });

  it('sums currencies into one group, keeping amounts per currency; open and cancelled are outside the rate', () => {
    const rows = [
      row({ currency: 'USD', orders: 10, recovered: 4, lost: 2, cancelled: 1, recoveredAmount: 4000, refundedAmount: 100, lostAmount: 900 }),
      row({ currency: 'EUR', orders: 5, recovered: 2, lost: 2, cancelled: 0, recoveredAmount: 9000, lostAmount: 10 }),
      row({ set: 'state', status: 'APPROVED', orders: 6 }),
      row({ set: 'state', status: 'PENDING', orders: 3 }),
    ];
    expect(overall(rows)).toEqual({
      orders: 15, open: 4, recovered: 6, lost: 4, cancelled: 1, recoveryRate: 0.6,
      amounts: [{ currency: 'EUR', recovered: 9000, refunded: 0, lost: 10 }, { currency: 'USD', recovered: 4000, refunded: 100, lost: 900 }],
    });
    expect(ordersByState(rows)).toEqual({ APPROVED: 6, DECLINED: 0, CHALLENGE: 0, SUBMITTED: 0, PENDING: 3, PROCESSING: 0, EXPIRED: 0, CANCELLED: 0 });
  });

  it('groups decline codes by the engine\'s canonical reason, across sources; brands case-insensitively', () => {
    const rows = [
      row({ set: 'code', declineSource: 'iso8583', declineCode: '51', cardBrand: 'visa', orders: 3, recovered: 1, lost: 1 }),
      row({ set: 'code', declineSource: 'stripe', declineCode: 'insufficient_funds', cardBrand: 'visa', orders: 2, recovered: 1 }),
      row({ set: 'code', declineSource: 'iso8583', declineCode: '05', cardBrand: null, orders: 1, lost: 1 }),
      row({ set: 'code', declineSource: 'NA', declineCode: 'NA', cardBrand: null, orders: 1 }),
      row({ set: 'brand', cardBrand: 'Visa', orders: 5 }),
      row({ set: 'brand', cardBrand: 'visa', currency: 'EUR', orders: 1 }),
      row({ set: 'brand', cardBrand: null, orders: 2 }),
    ];
    expect(byReason(rows).map((r) => [r.reason, r.class, r.orders, r.recovered, r.lost, r.recoveryRate])).toEqual([
      ['insufficient_funds', 'soft', 5, 2, 1, 2 / 3],
      ['do_not_honor', 'soft', 1, 0, 1, 0],
      ['unknown', 'soft', 1, 0, 0, null],
    ]);
    expect(byBrand(rows).map((r) => [r.brand, r.orders])).toEqual([['visa', 6], ['unknown', 2]]);
  });

  it('lists every day of the window, zeros included, and counts planned days beyond it apart', () => {
    const { days, plannedLater } = dayRows(new Date('2026-11-18T15:00:00Z'), new Date('2026-11-21T00:00:00Z'), [{ day: '2026-11-19', done: 4, approved: 1, declined: 3 }], [
      { day: '2026-11-20', planned: 2 },
      { day: '2026-11-25', planned: 5 },
    ]);
    expect(days.map((d) => [d.day, d.done, d.approved, d.declined, d.planned])).toEqual([
      ['2026-11-18', 0, 0, 0, 0],
      ['2026-11-19', 4, 1, 3, 0],
      ['2026-11-20', 0, 0, 0, 2],
      ['2026-11-21', 0, 0, 0, 0],
    ]);
    expect(plannedLater).toBe(5);
  });

  it('spans the days of the data: the first attempt (or since) to the last planned one, today in it, at least a week', () => {
    const now = new Date('2026-11-20T12:00:00Z');
    const day = (offset: number) => new Date(now.getTime() + offset * 86_400_000).toISOString().slice(0, 10);
    const rand = seeded(8);
    for (let i = 0; i < 200; i++) {
      const offsets = (n: number, lo: number, hi: number) => Array.from({ length: n }, () => lo + Math.floor(rand() * (hi - lo + 1))).sort((a, b) => a - b);
      const doneAt = offsets(Math.floor(rand() * 4), -400, 0);
      const plannedAt = offsets(Math.floor(rand() * 4), 0, 500);
      const since = rand() < 0.3 ? new Date(now.getTime() - Math.floor(rand() * 90) * 86_400_000 - 3_600_000) : undefined;
      const done = doneAt.filter((o) => !since || day(o) >= since.toISOString().slice(0, 10)).map((o) => ({ day: day(o), done: 1, approved: 0, declined: 1 }));
      const planned = plannedAt.map((o) => ({ day: day(o), planned: 1 }));
      const { from, to } = daySpan(since, now, done, planned);
      const { days, plannedLater } = dayRows(from, to, done, planned);
      const labels = days.map((d) => d.day);
      const first = since ? since.toISOString().slice(0, 10) : [day(0), ...done.map((d) => d.day)].sort()[0];
      expect(labels[0], `case ${i}`).toBe(first);
      expect(labels).toContain(day(0));
      expect(days.length).toBeGreaterThanOrEqual(MIN_DAYS);
      // Every attempt done and planned within a year ahead is on the chart; later ones are counted apart.
      expect(days.reduce((n, d) => n + d.done, 0)).toBe(done.length);
      expect(plannedLater).toBe(plannedAt.filter((o) => o > MAX_DAYS_AHEAD).length);
      expect(days.reduce((n, d) => n + d.planned, 0) + plannedLater).toBe(planned.length);
      const lastPlanned = plannedLater ? MAX_DAYS_AHEAD : plannedAt.at(-1);
      if (lastPlanned !== undefined && days.length > MIN_DAYS) expect(labels.at(-1)).toBe(day(Math.max(lastPlanned, 0)));
    }
  });
});

describe('report CSV', () => {
  it('quotes per RFC 4180 and keeps a name a spreadsheet would run as a formula inert', () => {
    const figures = { orders: 2, open: 0, recovered: 1, lost: 1, cancelled: 0, recoveryRate: 0.5, amounts: [{ currency: 'JPY', recovered: 1500, refunded: 0, lost: 20 }] };
    const report = {
      overall: figures, byReason: [], byBrand: [],
      byMerchant: [{ mid: 'm1', name: '=HYPERLINK("x"),"Acme, Inc"', ...figures }],
    } as unknown as RecoveryReport;
    expect(reportCsv(report).split('\r\n')).toEqual([
      'section,key,name,class,orders,open,recovered,lost,cancelled,recovery_rate,recovered_JPY,refunded_JPY,lost_JPY',
      'overall,,,,2,0,1,1,0,0.5,1500,0,20',
      'merchant,m1,"\'=HYPERLINK(""x""),""Acme, Inc""",,2,0,1,1,0,0.5,1500,0,20',
    ]);
  });
});
