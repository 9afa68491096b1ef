// The follow-up calls over HTTP (inject), on each database: outcome, GET /v1/orders/{key},
// refund, cancel, their unversioned aliases, and merchant isolation.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { DB_KINDS } from '../../helpers/db.ts';
import { apiFixture, evaluateBody, SOFT, type ApiFixture } from '../../helpers/api.ts';
import { orders, webhookEvents } from '../../../src/db/schema.ts';

describe.each(DB_KINDS)('order follow-up calls on %s', (kind) => {
  let f: ApiFixture;
  const db = () => f.t.tdb.database.db;
  const approved = async (amount = 4999) => {
    const res = await f.post('/v1/evaluate', evaluateBody(await f.a.tokenOf('4111111111111111'), { tx: { ...SOFT, amount } }));
    expect(res.json().status).toBe('APPROVED');
    return res.json().orderSessionKey as string;
  };
  const submitted = async () => (await f.post('/v1/evaluate', evaluateBody(await f.a.tokenOf('4000000000000077'), { mit: true }))).json().orderSessionKey as string;
  const events = (key: string, type: string) => db().select().from(webhookEvents).where(and(eq(webhookEvents.orderSessionKey, key), eq(webhookEvents.type, type)));

  beforeAll(async () => {
    f = await apiFixture(kind);
  });
  afterAll(() => f.close());

  it('answers /v1/outcome, /outcome and /v1//outcome with the order status', async () => {
    const key = await submitted();
    for (const path of ['/v1/outcome', '/outcome', '/v1//outcome']) {
      const res = await f.post(path, { orderSessionKey: key });
      expect(res.statusCode, path).toBe(200);
      expect(res.json()).toMatchObject({ success: true, result: 'Success', status: 'SUBMITTED', statusCode: null, errors: [], orderSessionKey: key, kind: 'MIT', amount: 1999, currency: 'USD' });
    }
    expect((await f.post('/v1/outcome', { OrderSessionKey: key })).json().status).toBe('SUBMITTED');
    const missing = await f.post('/v1/outcome', {});
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ statusCode: 'ERR_MODEL_INVALID', errors: [{ field: 'orderSessionKey', code: 'ERR_MODEL_REQUIRED' }] });
  });

  it("answers 404 for another merchant's order, an unknown key and a key that is not a uuid", async () => {
    const key = await approved();
    for (const [method, path, body] of [
      ['POST', '/v1/outcome', { orderSessionKey: key }],
      ['GET', `/v1/orders/${key}`, undefined],
      ['POST', `/v1/orders/${key}/refund`, { amount: 100 }],
      ['POST', `/v1/orders/${key}/cancel`, {}],
      ['POST', `/v1/orders/${key}/challenge`, { cvv: '123' }],
    ] as const) {
      const res = method === 'GET' ? await f.get(path, f.b) : await f.post(path, body, f.b);
      expect(res.statusCode, path).toBe(404);
      expect(res.json()).toMatchObject({ success: false, statusCode: 'ERR_HTTP_NOT_FOUND' });
    }
    expect((await f.post('/v1/outcome', { orderSessionKey: randomUUID() })).statusCode).toBe(404);
    expect((await f.get('/v1/orders/not-a-uuid')).statusCode).toBe(404);
    // The order is untouched.
    expect((await f.post('/v1/outcome', { orderSessionKey: key })).json()).toMatchObject({ status: 'APPROVED', refundedAmount: 0 });
  });

  it('GET /v1/orders/{key}: the order, its attempts and the planned next attempt', async () => {
    const key = await approved();
    const res = await f.get(`/v1/orders/${key}`);
    expect(res.statusCode).toBe(200);
    const json = res.json();
    expect(json).toMatchObject({ status: 'APPROVED', kind: 'CIT', attempts: 1, card: { bin: '411111', last4: '1111', brand: 'VISA' }, nextAttempt: null });
    expect(json.attemptHistory).toEqual([expect.objectContaining({ attemptNo: 1, status: 'approved', responseCode: '00', planReason: 'cit_realtime' })]);
    expect(res.body).not.toContain('4111111111111111');
    const mit = await submitted();
    const planned = (await f.get(`/v1/orders/${mit}`)).json();
    expect(planned).toMatchObject({ status: 'SUBMITTED', attemptHistory: [], nextAttempt: { at: expect.any(String) } });
  });

  it('refunds in part and in full, never more than captured, idempotently', async () => {
    const key = await approved(5000);
    const part = await f.post(`/v1/orders/${key}/refund`, { amountToRefund: 10.5, isPartialRefund: true, refundMessage: 'one item back' });
    expect(part.statusCode, part.body).toBe(200);
    expect(part.json()).toMatchObject({ success: true, result: 'Success', status: 'SUCCESS', orderSessionKey: key, amount: 1050, amountRefunded: 10.5, refundedAmount: 1050, remainingAmount: 3950 });
    // The same amount again without a key: the same refund (a retry), not a second one.
    const replay = await f.post(`/v1/orders/${key}/refund`, { amountToRefund: '10.50' });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json().refundId).toBe(part.json().refundId);
    // A second refund of the same amount needs its own key (body or Idempotency-Key header).
    const second = await f.post(`/v1/orders/${key}/refund`, { amount: 1050 }, f.a, { 'idempotency-key': 'second' });
    expect(second.json()).toMatchObject({ status: 'SUCCESS', refundedAmount: 2100 });
    expect(second.json().refundId).not.toBe(part.json().refundId);
    const tooMuch = await f.post(`/v1/orders/${key}/refund`, { amount: 2901, idempotencyKey: 'third' });
    expect(tooMuch.statusCode).toBe(422);
    expect(tooMuch.json().statusCode).toBe('ERR_API_REFUND_EXCEEDS_CAPTURED');
    const rest = await f.post('/refund', { orderSessionKey: key });
    expect(rest.json()).toMatchObject({ status: 'SUCCESS', amount: 2900, refundedAmount: 5000, remainingAmount: 0 });
    const none = await f.post('/v1/refund', { orderSessionKey: key, amount: 1, idempotencyKey: 'fourth' });
    expect(none.json().statusCode).toBe('ERR_API_REFUND_EXCEEDS_CAPTURED');
    expect((await f.post('/v1/outcome', { orderSessionKey: key })).json()).toMatchObject({ status: 'APPROVED', refundedAmount: 5000 });
    expect(await events(key, 'order.refunded')).toHaveLength(3);
  });

  it('refuses refunds of what was not captured, bad amounts, and answers a processor refusal', async () => {
    const mit = await submitted();
    const notApproved = await f.post(`/v1/orders/${mit}/refund`, { amount: 100 });
    expect(notApproved.statusCode).toBe(409);
    expect(notApproved.json().statusCode).toBe('ERR_API_NOT_REFUNDABLE');
    const key = await approved();
    for (const body of [{ amountToRefund: '1.234' }, { amountToRefund: -1 }, { amount: 10.5 }, { amount: 0 }]) {
      const res = await f.post(`/v1/orders/${key}/refund`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().statusCode).toBe('ERR_MODEL_INVALID');
    }
    // The charge voided at the processor behind rescued's back: the refund is refused there.
    const [o] = await db().select().from(orders).where(eq(orders.id, key));
    await f.t.api.orders.processor!.void({ idempotencyKey: `${key}:manual-void`, reference: key, processorRef: o!.confirmationId!, currency: 'USD' });
    const refused = await f.post(`/v1/orders/${key}/refund`, { amount: 100 });
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toMatchObject({ statusCode: 'ERR_API_REFUND_DECLINED' });
    expect((await f.post('/v1/outcome', { orderSessionKey: key })).json().refundedAmount).toBe(0);
  });

  it('cancels an MIT order that is not final, once, with its event; refuses a final order', async () => {
    const key = await submitted();
    const res = await f.post(`/v1/orders/${key}/cancel`, {});
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'CANCELLED', reason: 'cancelled_by_merchant' });
    expect((await f.post('/cancel', { orderSessionKey: key })).json().status).toBe('CANCELLED');
    expect(await events(key, 'order.cancelled')).toHaveLength(1);
    const [o] = await db().select().from(orders).where(eq(orders.id, key));
    expect(o!.nextAttemptAt).toBeNull();
    for (const status of ['PENDING', 'PROCESSING'] as const) {
      const k = await submitted();
      await db().update(orders).set({ status }).where(eq(orders.id, k));
      expect((await f.post('/v1/cancel', { orderSessionKey: k })).json().status).toBe('CANCELLED');
    }
    const final = await approved();
    const refused = await f.post(`/v1/orders/${final}/cancel`, {});
    expect(refused.statusCode).toBe(409);
    expect(refused.json().statusCode).toBe('ERR_MODEL_ILLEGAL_TRANSITION');
  });
});
