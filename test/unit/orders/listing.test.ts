// The listings' input and output without a database: the query schema (strings in, typed
// values out, each bad field named), the opaque cursor, a batch's figures, the CLI's lines.
import { describe, expect, it } from 'vitest';
import { parseOrderQuery } from '../../../src/orders/listing.ts';
import { decodeCursor, encodeCursor } from '../../../src/orders/cursor.ts';
import { orderFigures, parseBatchQuery } from '../../../src/orders/batch-view.ts';
import { batchLine, batchText } from '../../../src/cli/batches.ts';
import type { RescuedError } from '../../../src/errors.ts';

const now = new Date('2026-03-10T12:00:00.000Z');
const fails = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err as RescuedError;
  }
  throw new Error('did not throw');
};

describe('order listing query', () => {
  it('reads strings as sent: limit as a number, status in any case, since as a time or a duration', () => {
    expect(parseOrderQuery({ limit: '20', status: 'pending', since: '24h', orderId: 'A-1', unknown: 'x' }, now)).toEqual({
      limit: 20, status: 'PENDING', since: '2026-03-09T12:00:00.000Z', orderId: 'A-1',
    });
    expect(parseOrderQuery({ since: 'Tue, 10 Mar 2026 08:00:00 GMT', limit: '' }, now)).toEqual({ since: '2026-03-10T08:00:00.000Z' });
    expect(parseOrderQuery({}, now)).toEqual({});
  });

  it('refuses each bad field with ERR_MODEL_INVALID naming it', () => {
    const err = fails(() => parseOrderQuery({ limit: '501', status: 'GONE', since: 'soon', batchId: 'b-1' }, now));
    expect(err.code).toBe('ERR_MODEL_INVALID');
    expect(err.errors.map((e) => e.field).sort()).toEqual(['batchId', 'limit', 'since', 'status']);
    expect(err.message).toContain('status must be one of APPROVED, DECLINED');
    expect(fails(() => parseBatchQuery({ limit: '0' })).errors).toEqual([expect.objectContaining({ field: 'limit', code: 'ERR_MODEL_RANGE' })]);
  });
});

describe('cursor', () => {
  const check = (v: unknown) => ((v as { n?: unknown }).n === 1 ? { n: 1 } : undefined);
  it('round-trips a key and refuses anything else as ERR_API_BAD_CURSOR', () => {
    expect(decodeCursor(encodeCursor({ n: 1 }), check)).toEqual({ n: 1 });
    for (const bad of ['', '!!', 'bnVsbA', encodeCursor({ n: 2 }), Buffer.from('{"n":').toString('base64url')]) {
      const err = fails(() => decodeCursor(bad, check));
      expect(err.code, bad).toBe('ERR_API_BAD_CURSOR');
      expect(err.status).toBe(400);
    }
  });
});

describe('batch figures and lines', () => {
  it('counts open orders as pending and sums approved amounts by currency', () => {
    const figures = orderFigures([
      { status: 'SUBMITTED', currency: 'USD', count: 3, amount: 300 },
      { status: 'PROCESSING', currency: 'USD', count: 1, amount: 100 },
      { status: 'APPROVED', currency: 'USD', count: 2, amount: 2500 },
      { status: 'APPROVED', currency: 'EUR', count: 1, amount: 999 },
      { status: 'EXPIRED', currency: 'USD', count: 4, amount: 4000 },
      { status: 'CANCELLED', currency: 'USD', count: 1, amount: 100 },
    ]);
    expect(figures).toEqual({ orders: { pending: 4, approved: 3, expired: 4, cancelled: 1 }, recovered: [{ currency: 'EUR', amount: 999 }, { currency: 'USD', amount: 2500 }] });
  });

  it('prints a batch and a file being ingested', () => {
    const base = { batchId: 'b1', mid: 'm1', fileName: 'f.json', receivedAt: '2026-03-10T00:00:00.000Z', entries: 10, accepted: 8, rejected: 2, error: null, bytes: null };
    const done = { ...base, status: 'partially_accepted' as const, finishedAt: '2026-03-10T00:00:01.000Z', ackFile: 'f.json.ack.json', resultsFile: 'f.json.results.json', progress: null };
    expect(batchLine(done)).toBe('b1  f.json  partially_accepted  entries 10  accepted 8  rejected 2  received 2026-03-10T00:00:00.000Z  results written  m1');
    const text = batchText({ ...done, orders: { pending: 0, approved: 1, expired: 7, cancelled: 0 }, recovered: [{ currency: 'USD', amount: 1999 }] });
    expect(text).toContain('recovered: 19.99 USD');
    expect(text).toContain('results:   outbound/f.json.results.json');
    const ingesting = { ...base, status: 'ingesting' as const, finishedAt: null, ackFile: null, resultsFile: null, progress: { decided: 10, percent: 100, updatedAt: '2026-03-10T00:00:02.000Z' } };
    expect(batchLine(ingesting)).toBe('b1  f.json  ingesting 100% (10 of 10 entries)  started 2026-03-10T00:00:00.000Z  m1');
    expect(batchText({ ...ingesting, orders: null, recovered: [] })).toContain('progress:  10 of 10 entries (100%): accepted 8, rejected 2');
    const whole = { ...done, status: 'rejected' as const, entries: 0, accepted: 0, rejected: 0, resultsFile: null, error: { code: 'ERR_INTAKE_FILE_TYPE', message: 'not .json' }, bytes: 12 };
    expect(batchLine(whole)).toBe('b1  f.json  rejected whole: ERR_INTAKE_FILE_TYPE  received 2026-03-10T00:00:00.000Z  12 bytes  m1');
    expect(batchText({ ...whole, orders: null, recovered: [] })).toContain('reason:    ERR_INTAKE_FILE_TYPE: not .json');
  });
});
