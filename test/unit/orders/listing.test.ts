// The listings' input and output without a database: the query schema (strings in, typed
// values out, each bad field named), the opaque cursor, a batch's figures, the CLI's lines.
import { describe, expect, it } from 'vitest';
import { parseOrderQuery } from '../../../src/orders/listing.ts';
import { decodeCursor, encodeCursor } from '../../../src/orders/cursor.ts';
import { orderFigures, parseBatchQuery } from '../../../src/orders/batch-view.ts';
import { batchLine, batchText } from '../../../src/cli/batches.ts';
import type { RescuedError } from '../../../src/errors.ts';
import { seeded } from '../../helpers/seeded.ts';

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
  it('reads strings as sent: limit as a number, status in any case, since as a time or a duration', async () => {
    expect(await parseOrderQuery({ limit: '20', status: 'pending', since: '24h', orderId: 'A-1', unknown: 'x' }, now)).toEqual({
      limit: 20, status: 'PENDING', since: '2026-03-09T12:00:00.000Z', orderId: 'A-1',
    });
    expect(await parseOrderQuery({ since: 'Tue, 10 Mar 2026 08:00:00 GMT', limit: '' }, now)).toEqual({ since: '2026-03-10T08:00:00.000Z' });
    expect(await parseOrderQuery({}, now)).toEqual({});
  });

  it('refuses each bad field with ERR_MODEL_INVALID naming it', async () => {
    const err = (await parseOrderQuery({ limit: '501', status: 'GONE', since: 'soon', batchId: 'b-1' }, now).then(() => { throw new Error('did not throw'); }, (e: unknown) => e)) as RescuedError;
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

describe('order listing query: the checks without Ajv agree with Ajv', () => {
  // Generated queries of canonical values (normalising leaves them as they are), valid and
  // not, field by field: parseOrderQuery accepts exactly those the schema's Ajv validator does.
  const POOLS: Record<string, unknown[]> = {
    orderId: ['A-1', '', 'x'.repeat(255), 'x'.repeat(256), 7, null],
    status: ['PENDING', 'APPROVED', 'GONE', '', 3],
    batchId: ['0f8fad5b-d9cb-469f-a165-70867728950e', '0F8FAD5B-D9CB-469F-A165-70867728950E', 'b-1', '0f8fad5b-d9cb-469f-a165-70867728950', 5],
    since: ['2026-03-09T12:00:00.000Z', 'soon', '2026-02-30T00:00:00.000Z', 1],
    limit: [1, 50, 500, 0, 501, 2.5, -1, '12x'],
    cursor: ['abc', '', 'c'.repeat(512), 'c'.repeat(513), false],
  };
  it('on 400 generated queries (seed 28)', async () => {
    const { compile } = await import('../../../src/domain/formats.ts');
    const { OrderListQuerySchema } = await import('../../../src/orders/listing.ts');
    const ajvValid = compile(OrderListQuerySchema);
    const random = seeded(28);
    for (let i = 0; i < 400; i++) {
      const raw: Record<string, unknown> = {};
      for (const [key, pool] of Object.entries(POOLS)) if (random() < 0.5) raw[key] = pool[Math.floor(random() * pool.length)];
      // '' is "not given" to the parser, as an empty URL parameter is.
      const given = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== '' && v !== undefined));
      const expected = ajvValid(structuredClone(given));
      const accepted = await parseOrderQuery(raw, now).then(() => true, (e: RescuedError) => (expect(e.code).toBe('ERR_MODEL_INVALID'), false));
      expect(accepted, `seed 28 case ${i}: ${JSON.stringify(raw)}`).toBe(expected);
    }
  });
});
