// POST /v1/transmit on each database: 202 at once, records stored in bulk with the merchant
// model's counters, flushed on close, and the model the planner reads built from them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { DB_KINDS } from '../../helpers/db.ts';
import { apiFixture, evaluateBody, type ApiFixture } from '../../helpers/api.ts';
import { merchantModelStats, transmits } from '../../../src/db/schema.ts';
import { loadMerchantModel } from '../../../src/engine/model.ts';

type Obj = Record<string, unknown>;

/** An approved payment at 14:05 UTC−5 (09:05 local... see the sample) on the 30th. */
function transmitBody(over: Obj = {}): Obj {
  const body = evaluateBody('4111111111111111', { tx: { responseStatus: 'Approved', responseCode: '00' }, top: { isDeclined: false } });
  delete body.idempotencyKey;
  return { ...body, paymentMethod: { ...(body.paymentMethod as Obj), cardNumber: undefined, token: undefined }, ...over };
}

describe.each(DB_KINDS)('POST /v1/transmit on %s', (kind) => {
  let f: ApiFixture;
  const db = () => f.t.tdb.database.db;
  beforeAll(async () => {
    f = await apiFixture(kind, { api: { transmitFlushIntervalMs: 60_000, transmitBatchSize: 50, transmitMaxBuffered: 120 } });
  });
  afterAll(() => f.close());

  it('answers 202 at once and stores the records in bulk with the model counters', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 60; i++) {
      const res = await f.post(i % 2 ? '/transmit' : '/v1/transmit', transmitBody());
      expect(res.statusCode, res.body).toBe(202);
      expect(res.json()).toMatchObject({ success: true, result: 'Success', transmitId: expect.any(String) });
      ids.push(res.json().transmitId);
    }
    // 50 were written as a full batch; the other 10 wait for the interval or a flush.
    await f.t.api.transmits.flush();
    const rows = await db().select().from(transmits).where(eq(transmits.merchantId, f.a.merchantId));
    expect(rows.map((r) => r.id).sort()).toEqual(ids.sort());
    expect(rows[0]).toMatchObject({ approved: true, amount: 4999, currency: 'USD', cardBin: '411111', cardBrand: 'VISA', cardType: 'credit', localHour: 9, localDayOfMonth: 20 });
    expect(JSON.stringify(rows.map((r) => r.request))).not.toContain('4111111111111111');
    const stats = await db().select().from(merchantModelStats).where(eq(merchantModelStats.merchantId, f.a.merchantId));
    const by = (d: string, b: string) => stats.find((s) => s.dimension === d && s.bucket === b);
    expect(by('hour', '9')).toMatchObject({ approvals: 60, total: 60 });
    expect(by('day', '20')).toMatchObject({ approvals: 60, total: 60 });
    expect(by('bin', '411111')).toMatchObject({ approvals: 60, total: 60 });
    expect(by('card_type', 'credit')).toMatchObject({ approvals: 60, total: 60 });
    // The planner's model: 09:00 and the 20th (the sample's decline day) weigh more than any other hour and day.
    const model = await loadMerchantModel(db(), f.a.merchantId);
    expect(model.hourWeights).toHaveLength(24);
    expect(model.dayOfMonthWeights).toHaveLength(31);
    expect(Math.max(...model.hourWeights)).toBe(model.hourWeights[9]);
    expect(Math.max(...model.dayOfMonthWeights)).toBe(model.dayOfMonthWeights[19]);
  });

  it('refuses a record without orderId, transaction or payer; keeps one with other problems, with warnings', async () => {
    const bad = await f.post('/v1/transmit', transmitBody({ orderId: undefined }));
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ statusCode: 'ERR_MODEL_INVALID', errors: [{ field: 'orderId' }] });
    const lenient = await f.post('/v1/transmit', transmitBody({ siteId: 'not-a-uuid' }));
    expect(lenient.statusCode).toBe(202);
    expect(lenient.json().warnings).toEqual([expect.objectContaining({ field: 'siteId' })]);
    expect((await f.t.app.inject({ method: 'POST', url: '/v1/transmit', payload: transmitBody() })).statusCode).toBe(401);
  });

  it('answers 503 ERR_API_TRANSMIT_BUSY when too many records wait, and stores what waits on close', async () => {
    // Batches larger than the cap: nothing is written until the interval (a minute) or close.
    const g = await apiFixture(kind, { api: { transmitFlushIntervalMs: 60_000, transmitBatchSize: 1000, transmitMaxBuffered: 5 } });
    let closed = false;
    try {
      const answers = [];
      for (let i = 0; i < 7; i++) answers.push(await g.post('/v1/transmit', transmitBody()));
      expect(answers.map((r) => r.statusCode)).toEqual([202, 202, 202, 202, 202, 503, 503]);
      expect(answers[5]!.json().statusCode).toBe('ERR_API_TRANSMIT_BUSY');
      expect(answers[5]!.headers['retry-after']).toBeDefined();
      expect(await g.t.tdb.database.db.select().from(transmits)).toHaveLength(0);
      await g.t.app.close();
      closed = true;
      expect(await g.t.tdb.database.db.select().from(transmits)).toHaveLength(5);
    } finally {
      if (closed) await g.t.tdb.dispose();
      else await g.close();
    }
  });
});
