// Card updates through the API and the engine, on each database: a decline that means the
// card must change makes the order wait for an updated card (order.card_update_needed), the
// merchant's new card is charged at once under its own credential and the order is attributed
// merchant_update; a merchant that turned the wait off keeps today's EXPIRED; a wait with no
// card ends at the deadline with the original reason; and refusals change nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asc, eq } from 'drizzle-orm';
import { DB_KINDS, silentLog } from '../../helpers/db.ts';
import { apiFixture, evaluateBody, type ApiFixture } from '../../helpers/api.ts';
import { DEFAULT_ENGINE_CONFIG } from '../../helpers/engine.ts';
import { ManualClock } from '../../../src/clock.ts';
import { createEngine, type Engine } from '../../../src/engine/index.ts';
import { attempts, cards, orders, processorCalls, webhookEvents } from '../../../src/db/schema.ts';
import { setAwaitUpdatedCard } from '../../../src/db/queries/card-update-setting.ts';
import type { AuthorizeRequest, GatewayCardUpdate, Processor } from '../../../src/processors/types.ts';
import { recoveryReport } from '../../../src/reports/recovery.ts';
import { reportText } from '../../../src/reports/render.ts';

const EXPIRED_CARD = '4000000000000069';
const APPROVES = '4111111111111111';
const DAY_MS = 86_400_000;

describe.each(DB_KINDS)('card updates on %s', (kind) => {
  let f: ApiFixture;
  let engine: Engine;
  const clock = new ManualClock(new Date('2026-11-27T12:00:00Z'));
  const db = () => f.t.tdb.database.db;

  beforeAll(async () => {
    f = await apiFixture(kind, { clock });
    engine = createEngine({ db: db(), processor: f.t.api.orders.processor!, clock, log: silentLog, config: DEFAULT_ENGINE_CONFIG, testMode: true });
  }, 60_000);
  afterAll(async () => {
    await engine?.stop();
    await f?.close();
  });

  /** An MIT handed over with an expired-card decline (ISO 54), planned by the engine. */
  async function expiredCardOrder(days = 7): Promise<string> {
    clock.advance(31 * DAY_MS); // the card's 30-day windows start afresh for each order
    const tok = await f.a.tokenOf(EXPIRED_CARD);
    const expiryDateUtc = new Date(clock.now().getTime() + days * DAY_MS).toISOString();
    const res = await f.post('/v1/evaluate', evaluateBody(tok, { mit: true, top: { expiryDateUtc }, tx: { responseCode: '54', responseCodeSource: 'iso8583' } }));
    expect(res.statusCode, res.body).toBe(200);
    const key = res.json().orderSessionKey as string;
    await engine.runOnce();
    return key;
  }
  const row = async (key: string) => (await db().select().from(orders).where(eq(orders.id, key)))[0]!;
  const events = async (key: string) => (await db().select().from(webhookEvents).where(eq(webhookEvents.orderSessionKey, key)).orderBy(asc(webhookEvents.createdAt))).map((e) => e.type);

  it('waits for an updated card, charges the merchant\'s new card at once and attributes the recovery to it', async () => {
    const key = await expiredCardOrder();
    const waiting = await f.get(`/v1/orders/${key}`);
    expect(waiting.json()).toMatchObject({
      status: 'PENDING', recoveredBy: null,
      nextAttempt: { at: null, reason: 'awaiting_updated_card', decline: { reason: 'expired_card', code: '54' } },
      awaitedUpdatedCard: { reason: 'card_data_required_mit: expired_card' },
    });
    expect(await events(key)).toEqual(['order.card_update_needed']);
    // Waiting, the order is never claimed.
    clock.advance(DAY_MS);
    expect(await engine.runOnce()).toBe(0);
    expect((await recoveryReport(db(), { merchantId: f.a.merchantId, now: clock.now() })).queue).toMatchObject({ awaitingCard: 1, parked: 0 });

    const newTok = await f.a.tokenOf(APPROVES);
    const updated = await f.post(`/v1/orders/${key}/payment-method`, { token: newTok });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json()).toMatchObject({ status: 'PENDING', nextAttempt: { reason: 'card_updated', at: clock.now().toISOString() }, cardUpdates: [{ event: 'order.card_updated', source: 'merchant', kind: 'card', last4: '1111' }] });
    expect(await engine.runOnce()).toBe(1);
    const done = await f.get(`/v1/orders/${key}`);
    expect(done.json()).toMatchObject({ status: 'APPROVED', recoveredBy: 'merchant_update', attemptHistory: [{ status: 'approved', card: { source: 'merchant', last4: '1111' } }] });
    const tries = await db().select().from(attempts).where(eq(attempts.orderSessionKey, key));
    expect(tries.map((a) => a.cardToken)).toEqual([newTok]);
    // The old card was not charged again: the processor saw one call for the order, on the new card.
    const calls = await db().select().from(processorCalls).where(eq(processorCalls.reference, key));
    expect(calls.filter((c) => c.operation === 'authorize')).toHaveLength(1);
    expect(await events(key)).toEqual(['order.card_update_needed', 'order.card_updated', 'order.completed']);
    const completed = (await db().select().from(webhookEvents).where(eq(webhookEvents.orderSessionKey, key))).find((e) => e.type === 'order.completed')!;
    expect((completed.payload as { EventData: Record<string, unknown> }).EventData).toMatchObject({ recoveredBy: 'merchant_update' });
    // The report gives the recovered amount per cause (the console, `rescued report` and the API share it).
    const report = await recoveryReport(db(), { merchantId: f.a.merchantId, now: clock.now() });
    const amount = (await row(key)).amount;
    expect(report.byRecoveryCause.find((c) => c.cause === 'merchant_update')).toEqual({ cause: 'merchant_update', recovered: 1, amounts: [{ currency: 'USD', recovered: amount, refunded: 0 }] });
    expect(report.byRecoveryCause.map((c) => c.cause)).toEqual(['retry', 'merchant_update', 'account_updater', 'other_card']);
    expect(reportText(report)).toMatch(/recovered by:[\s\S]*merchant_update\s+1\s+\S+ USD/);
    const reportApi = await f.get('/v1/reports/recovery');
    expect(reportApi.statusCode, reportApi.body).toBe(200);
    expect(reportApi.json().byRecoveryCause).toEqual(report.byRecoveryCause);
  });

  it('keeps today\'s behaviour for a merchant that turned the wait off', async () => {
    await setAwaitUpdatedCard(db(), f.a.merchantId, false);
    // The engine reads the setting at most once a minute.
    clock.advance(120_000);
    try {
      const key = await expiredCardOrder();
      expect(await row(key)).toMatchObject({ status: 'EXPIRED', statusReason: 'card_data_required_mit: expired_card', awaitingCard: null });
      expect(await events(key)).toEqual(['order.expired']);
    } finally {
      await setAwaitUpdatedCard(db(), f.a.merchantId, null);
      clock.advance(120_000);
    }
  });

  it('ends a wait with no card at the deadline, EXPIRED with the original reason', async () => {
    const key = await expiredCardOrder(2);
    clock.advance(2 * DAY_MS + 1000);
    await engine.sweepOnce();
    expect(await row(key)).toMatchObject({ status: 'EXPIRED', statusReason: 'card_data_required_mit: expired_card' });
    expect(await events(key)).toEqual(['order.card_update_needed', 'order.expired']);
    const expired = (await db().select().from(webhookEvents).where(eq(webhookEvents.orderSessionKey, key))).find((e) => e.type === 'order.expired')!;
    expect((expired.payload as { EventData: Record<string, unknown> }).EventData).toMatchObject({ reason: 'card_data_required_mit: expired_card' });
  });

  it('lists the route and the card-update events in the OpenAPI document', async () => {
    const doc = (await f.t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(doc.paths)).toContain('/v1/orders/{orderSessionKey}/payment-method');
    expect(Object.keys(doc.webhooks)).toEqual(expect.arrayContaining(['order.card_update_needed', 'order.card_updated', 'order.completed']));
  });

  it('refuses a final order (409), another merchant\'s order (404) and a bad card (field errors), changing nothing', async () => {
    const key = await expiredCardOrder(2);
    const newTok = await f.a.tokenOf(APPROVES);
    const cardsBefore = (await db().select().from(cards)).length;
    const before = await row(key);

    const other = await f.post(`/v1/orders/${key}/payment-method`, { token: await f.b.tokenOf(APPROVES) }, f.b);
    expect(other.statusCode).toBe(404);
    const unknown = await f.post(`/v1/orders/${key}/payment-method`, { token: 'tok_not_ours' });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json()).toMatchObject({ statusCode: 'ERR_VAULT_TOKEN_UNKNOWN', errors: [{ field: 'token' }] });
    const badCard = await f.post(`/v1/orders/${key}/payment-method`, { payment_method: { credit_card: { first_name: 'A', last_name: 'B', number: '4111111111111112', month: '13', year: '2020' } } });
    expect(badCard.statusCode).toBe(422);
    expect(badCard.json().errors.map((e: { field: string }) => e.field)).toEqual(expect.arrayContaining(['payment_method.credit_card.number', 'payment_method.credit_card.month']));
    expect(badCard.body).not.toContain('4111111111111112');
    const same = await f.post(`/v1/orders/${key}/payment-method`, { token: before.cardToken });
    expect(same.statusCode, same.body).toBe(422);
    expect(same.json()).toMatchObject({ statusCode: 'ERR_API_CARD_ALREADY_USED' });
    expect(await row(key)).toEqual(before);
    expect((await db().select().from(cards)).length).toBe(cardsBefore + 1); // f.b's card only

    clock.advance(3 * DAY_MS);
    await engine.sweepOnce();
    const final = await row(key);
    expect(final.status).toBe('EXPIRED');
    const closed = await f.post(`/v1/orders/${key}/payment-method`, { token: newTok });
    expect(closed.statusCode).toBe(409);
    expect(closed.json()).toMatchObject({ statusCode: 'ERR_API_ORDER_CLOSED' });
    expect(await row(key)).toEqual(final);
    expect(await events(key)).toEqual(['order.card_update_needed', 'order.expired']);
  });

  it('takes a card in the tokenize shape for an order still being retried, and its next attempt is the new card\'s', async () => {
    clock.advance(31 * DAY_MS);
    const tok = await f.a.tokenOf('4000000000000002'); // do not honor, every time
    const expiryDateUtc = new Date(clock.now().getTime() + 20 * DAY_MS).toISOString();
    const res = await f.post('/v1/evaluate', evaluateBody(tok, { mit: true, top: { expiryDateUtc }, tx: { responseCode: '05', responseCodeSource: 'iso8583' } }));
    const key = res.json().orderSessionKey as string;
    await engine.runOnce();
    expect(await row(key)).toMatchObject({ status: 'PENDING' });
    expect((await row(key)).nextAttemptAt!.getTime()).toBeGreaterThan(clock.now().getTime());
    const updated = await f.post(`/v1/orders/${key}/payment-method`, { payment_method: { credit_card: { first_name: 'Jane', last_name: 'Doe', number: '5555555555554444', month: '12', year: '2031' } } });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(await engine.runOnce()).toBe(1);
    expect(await row(key)).toMatchObject({ status: 'APPROVED', recoveredBy: 'merchant_update', attemptCount: 1 });
    const tries = await db().select().from(attempts).where(eq(attempts.orderSessionKey, key));
    expect(tries.map((a) => a.cardToken)).not.toContain(tok);
  });
});

/**
 * The sandbox behind a stand-in for a gateway with an account updater: the first charge of the
 * expired card is refused (54) and says the card's expiry was updated, as Stripe's automatic
 * card updates and Adyen's real-time account updater do; a charge of the updated credential
 * is approved. (The Stripe and Adyen connectors' own answers are tested with their fakes.)
 */
function withUpdater(inner: Processor, updates: GatewayCardUpdate, seen: AuthorizeRequest[]): Processor {
  return {
    ...inner,
    name: inner.name,
    local: undefined,
    async authorize(req) {
      seen.push(req);
      if (req.credential?.kind === 'gateway') return { approved: true, responseCode: '00', processorRef: `au_${req.idempotencyKey}`, replayed: false };
      const answer = await inner.authorize(req);
      return answer.approved ? answer : { ...answer, cardUpdate: updates };
    },
  };
}

describe.each(DB_KINDS)('the gateway\'s account updater on %s', (kind) => {
  let f: ApiFixture;
  let engine: Engine;
  const seen: AuthorizeRequest[] = [];
  const clock = new ManualClock(new Date('2026-11-27T12:00:00Z'));
  const db = () => f.t.tdb.database.db;

  beforeAll(async () => {
    f = await apiFixture(kind, { clock });
    const processor = withUpdater(f.t.api.orders.processor!, { kind: 'expiry', expMonth: 3, expYear: 2031, gatewayReference: 'pm_updated_1' }, seen);
    engine = createEngine({ db: db(), processor, clock, log: silentLog, config: DEFAULT_ENGINE_CONFIG, testMode: true });
  }, 60_000);
  afterAll(async () => {
    await engine?.stop();
    await f?.close();
  });

  /** A rebill of the card declined 05, planned by the engine, then made due now. */
  async function rebillDueNow(tok: string): Promise<string> {
    const expiryDateUtc = new Date(clock.now().getTime() + 10 * DAY_MS).toISOString();
    const res = await f.post('/v1/evaluate', evaluateBody(tok, { mit: true, top: { expiryDateUtc }, tx: { responseCode: '05', responseCodeSource: 'iso8583' } }));
    const key = res.json().orderSessionKey as string;
    await engine.runOnce();
    await db().update(orders).set({ nextAttemptAt: clock.now() }).where(eq(orders.id, key));
    return key;
  }

  it('charges the updated credential next, under its own counters, attributed account_updater, one charge', async () => {
    const tok = await f.a.tokenOf('4000000000000002'); // the issuer says do not honor; the stand-in gateway adds its updater news
    const key = await rebillDueNow(tok);
    expect(await engine.runOnce()).toBe(1);
    const o = (await db().select().from(orders).where(eq(orders.id, key)))[0]!;
    // A 05 is not a card-must-change decline: the updated card is planned as the planner decides.
    expect(o).toMatchObject({ status: 'PENDING', credential: `${tok}~au:pm_updated_1` });
    await db().update(orders).set({ nextAttemptAt: clock.now() }).where(eq(orders.id, key));
    expect(await engine.runOnce()).toBe(1);
    const done = await f.get(`/v1/orders/${key}`);
    expect(done.json()).toMatchObject({
      status: 'APPROVED', recoveredBy: 'account_updater',
      cardUpdates: [{ source: 'account_updater', kind: 'expiry', expMonth: 3, expYear: 2031 }],
      attemptHistory: [{ status: 'declined', card: { source: 'original' } }, { status: 'approved', card: { source: 'account_updater' } }],
    });
    const tries = await db().select().from(attempts).where(eq(attempts.orderSessionKey, key)).orderBy(asc(attempts.attemptNo));
    expect(tries.map((a) => a.cardToken)).toEqual([tok, `${tok}~au:pm_updated_1`]);
    expect(tries.filter((a) => a.status === 'approved')).toHaveLength(1);
    // The second call named the gateway's updated stored card.
    expect(seen.at(-1)!.credential).toEqual({ kind: 'gateway', gatewayReference: 'pm_updated_1', expMonth: 3, expYear: 2031 });
    expect(seen.at(-1)!.cardToken).toBe(tok);
    const types = (await db().select().from(webhookEvents).where(eq(webhookEvents.orderSessionKey, key))).map((e) => e.type).sort();
    expect(types).toEqual(['order.card_updated', 'order.completed']);
  });

  it('goes to the updated credential at once after a card-must-change decline', async () => {
    clock.advance(31 * DAY_MS);
    const tok = await f.a.tokenOf('4000000000000069'); // expired card (54)
    const key = await rebillDueNow(tok);
    expect(await engine.runOnce()).toBe(1);
    expect((await db().select().from(orders).where(eq(orders.id, key)))[0]).toMatchObject({ status: 'PENDING', planReason: 'card_updated', nextAttemptAt: clock.now() });
    expect(await engine.runOnce()).toBe(1);
    expect((await db().select().from(orders).where(eq(orders.id, key)))[0]).toMatchObject({ status: 'APPROVED', recoveredBy: 'account_updater', attemptCount: 2 });
  });
});
