// POST /v1/evaluate over HTTP (inject), on each database: the spec's example with its
// capitalised variants, the CIT decision for every sandbox test card, MIT, idempotency,
// orderId uniqueness, the sandbox amount bounds and every refusal.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { DB_KINDS } from '../../helpers/db.ts';
import { apiFixture, asMerchant, evaluateBody, SAMPLE_CIT, SOFT, type ApiFixture } from '../../helpers/api.ts';
import { testApp } from '../../helpers/app.ts';
import { waitFor } from '../../helpers/wait.ts';
import { sandboxTestCards, type TestCard } from '../../../src/vault/test-cards.ts';
import { ManualClock } from '../../../src/clock.ts';
import { orders, attempts, idempotencyRecords, processorCalls } from '../../../src/db/schema.ts';
import { requestHash } from '../../../src/http/routes/evaluate.ts';

type Obj = Record<string, unknown>;
// A Friday, 12:00 UTC (07:00 for the sample's payer at UTC−5): a payday for the payday card.
const FRIDAY = new Date('2026-11-27T12:00:00Z');

/** The decision the README's test-card table documents for a first, customer-present attempt. */
function documented(card: TestCard): string {
  switch (card.processor.outcome) {
    case 'approve':
    case 'approve_on_payday':
      return 'APPROVED';
    case 'challenge':
      return 'CHALLENGE';
    default:
      return 'DECLINED';
  }
}

/** The spec's spelling variants: IsDeclined, SiteUrl, zipCode, ExpirationMonth, ExpirationYear. */
function capitalised(body: Obj): Obj {
  const { isDeclined, siteUrl, ...rest } = body;
  const bill = { ...(body.billingInformation as Obj) };
  bill.zipCode = bill.zipcode;
  delete bill.zipcode;
  const pm = { ...(body.paymentMethod as Obj) };
  pm.ExpirationMonth = pm.expirationMonth;
  pm.ExpirationYear = pm.expirationYear;
  delete pm.expirationMonth;
  delete pm.expirationYear;
  return { ...rest, IsDeclined: isDeclined, SiteUrl: siteUrl, billingInformation: bill, paymentMethod: pm };
}

describe.each(DB_KINDS)('POST /v1/evaluate on %s', (kind) => {
  let f: ApiFixture;
  const clock = new ManualClock(FRIDAY);
  const db = () => f.t.tdb.database.db;
  beforeAll(async () => {
    f = await apiFixture(kind, { clock });
  });
  afterAll(() => f.close());

  it("answers the spec's example request, with its capitalised variants, with the example response's fields", async () => {
    const tok = await f.a.tokenOf('4111111111111111');
    for (const body of [evaluateBody(tok), capitalised(evaluateBody(tok)), { ...capitalised(evaluateBody(tok)), isDecline: true, IsDeclined: undefined }]) {
      const res = await f.post('/v1/evaluate', body);
      expect(res.statusCode, res.body).toBe(200);
      const json = res.json();
      expect(json).toMatchObject({ result: 'Success', status: expect.stringMatching(/^(APPROVED|DECLINED|CHALLENGE)$/), senseKey: SAMPLE_CIT.senseKey });
      expect(json.orderSessionKey).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    }
  });

  it.each(sandboxTestCards().cards.map((c) => [c.number.slice(-4), c.processor.outcome, c] as const))('CIT with the test card ending %s (%s) yields the documented decision', async (_l4, _o, card) => {
    const tok = await f.a.tokenOf(card.number);
    const payer = card.requiresPayerEmail ? { email: card.requiresPayerEmail } : {};
    const res = await f.post('/v1/evaluate', evaluateBody(tok, { tx: SOFT, payer, pm: { cardBrand: card.brand } }));
    expect(res.statusCode, res.body).toBe(200);
    const json = res.json();
    expect(json.status).toBe(documented(card));
    const [order] = await db().select().from(orders).where(eq(orders.id, json.orderSessionKey));
    expect(order).toMatchObject({ kind: 'CIT', status: documented(card), attemptCount: 1 });
    if (json.status === 'APPROVED') expect(order!.confirmationId).toBeTruthy();
    if (json.status === 'CHALLENGE') expect(json.challenge).toBe(card.processor.outcome === 'challenge' ? card.processor.method : undefined);
    if (json.status === 'DECLINED') expect(json.reason).toBeTruthy();
  });

  it('declines a hard decline at once and challenges a data decline, without an attempt', async () => {
    const tok = await f.a.tokenOf('4111111111111111');
    const hard = (await f.post('/v1/evaluate', evaluateBody(tok, { tx: { responseCode: '41', responseCodeSource: 'iso8583' } }))).json();
    expect(hard).toMatchObject({ status: 'DECLINED', reason: 'lost_or_stolen' });
    const data = (await f.post('/v1/evaluate', evaluateBody(tok, { tx: { responseCode: 'N7', responseCodeSource: 'iso8583' } }))).json();
    expect(data).toMatchObject({ status: 'CHALLENGE', reason: 'cvv_failure', challenge: 'cvv' });
    for (const key of [hard.orderSessionKey, data.orderSessionKey]) expect(await db().select().from(attempts).where(eq(attempts.orderSessionKey, key))).toHaveLength(0);
  });

  it('completes a challenge with a CVV that is never stored, once', async () => {
    const tok = await f.a.tokenOf('4000000000000101');
    const first = (await f.post('/v1/evaluate', evaluateBody(tok, { tx: SOFT }))).json();
    expect(first).toMatchObject({ status: 'CHALLENGE', challenge: 'cvv' });
    const key = first.orderSessionKey as string;
    expect((await f.post(`/v1/orders/${key}/challenge`, {})).json()).toMatchObject({ statusCode: 'ERR_MODEL_INVALID', errors: [{ field: 'cvv', code: 'ERR_MODEL_REQUIRED' }] });
    const bad = await f.post(`/v1/orders/${key}/challenge`, { cvv: '12a' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).not.toContain('12a');
    const done = await f.post(`/v1/orders/${key}/challenge`, { cvv: '739' });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({ status: 'APPROVED', orderSessionKey: key, attempts: 2 });
    expect(done.json().confirmationId).toBeTruthy();
    const again = await f.post(`/v1/orders/${key}/challenge`, { cvv: '739' });
    expect(again.statusCode).toBe(409);
    expect(again.json().statusCode).toBe('ERR_API_CHALLENGE_CLOSED');
    // The CVV is nowhere in the database.
    const dump = JSON.stringify(await db().select().from(orders).where(eq(orders.id, key))) + JSON.stringify(await db().select().from(attempts).where(eq(attempts.orderSessionKey, key)));
    // As a value of its own: random ids (a merchant uuid "…79739…") may hold the digits.
    expect(dump).not.toMatch(/(?<![0-9A-Za-z])739(?![0-9A-Za-z])/);
    const { rows } = await (async () => ({ rows: JSON.stringify(await db().execute('select * from processor_calls' as never)) }))();
    expect(rows).not.toContain('"739"');
  });

  it('a data decline completed by the customer ends APPROVED for a good card; a 3-D Secure challenge completes with threeDSecure', async () => {
    const tok = await f.a.tokenOf('4111111111111111');
    const c = (await f.post('/v1/evaluate', evaluateBody(tok, { tx: { responseCode: 'N7', responseCodeSource: 'iso8583' } }))).json();
    expect((await f.post(`/v1/orders/${c.orderSessionKey}/challenge`, { cvv: '123' })).json()).toMatchObject({ status: 'APPROVED', attempts: 1 });
    const tds = await f.a.tokenOf('4000000000003220');
    const d = (await f.post('/v1/evaluate', evaluateBody(tds, { tx: SOFT }))).json();
    expect(d).toMatchObject({ status: 'CHALLENGE', challenge: '3ds' });
    const done = await f.post(`/v1/orders/${d.orderSessionKey}/challenge`, { threeDSecure: { authenticationValue: 'AAABBB', ecommerceIndicator: '05', directoryServerTransactionId: randomUUID() } });
    expect(done.json()).toMatchObject({ status: 'APPROVED' });
  });

  it('refuses a second completion while one holds the challenge (ERR_API_CHALLENGE_BUSY)', async () => {
    const tok = await f.a.tokenOf('4000000000000101');
    const c = (await f.post('/v1/evaluate', evaluateBody(tok, { tx: SOFT }))).json();
    await db().update(orders).set({ leaseOwner: 'challenge:other', leaseExpiresAt: new Date(clock.now().getTime() + 30_000) }).where(eq(orders.id, c.orderSessionKey));
    const res = await f.post(`/v1/orders/${c.orderSessionKey}/challenge`, { cvv: '123' });
    expect(res.statusCode).toBe(409);
    expect(res.json().statusCode).toBe('ERR_API_CHALLENGE_BUSY');
  });

  it('expires a challenge not completed in time (ERR_API_CHALLENGE_EXPIRED)', async () => {
    const tok = await f.a.tokenOf('4000000000000101');
    const c = (await f.post('/v1/evaluate', evaluateBody(tok, { tx: SOFT }))).json();
    clock.advance(16 * 60_000);
    try {
      const res = await f.post(`/v1/orders/${c.orderSessionKey}/challenge`, { cvv: '123' });
      expect(res.statusCode).toBe(409);
      expect(res.json().statusCode).toBe('ERR_API_CHALLENGE_EXPIRED');
      expect((await f.post('/v1/outcome', { orderSessionKey: c.orderSessionKey })).json()).toMatchObject({ status: 'EXPIRED', reason: 'challenge_not_completed' });
    } finally {
      clock.set(FRIDAY);
    }
  });

  it('stores an MIT SUBMITTED for the engine', async () => {
    const tok = await f.a.tokenOf('4000000000000077');
    const res = await f.post('/v1/evaluate', evaluateBody(tok, { mit: true }));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ result: 'Success', status: 'SUBMITTED' });
    const [o] = await db().select().from(orders).where(eq(orders.id, res.json().orderSessionKey));
    expect(o).toMatchObject({ kind: 'MIT', status: 'SUBMITTED', attemptCount: 0 });
    expect(o!.nextAttemptAt).toBeInstanceOf(Date);
    expect(o!.expiresAt).toBeInstanceOf(Date);
  });

  it('replays the answer for the same idempotencyKey and body; 422 for another body; 409 while the first is in flight', async () => {
    const tok = await f.a.tokenOf('4111111111111111');
    const body = evaluateBody(tok, { tx: SOFT });
    const first = await f.post('/v1/evaluate', body);
    const again = await f.post('/v1/evaluate', body);
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(await db().select().from(orders).where(eq(orders.orderId, body.orderId as string))).toHaveLength(1);
    const other = await f.post('/v1/evaluate', { ...body, orderId: `ORD-${randomUUID()}` });
    expect(other.statusCode).toBe(422);
    expect(other.json()).toMatchObject({ success: false, result: 'Failed', status: null, statusCode: 'ERR_API_IDEMPOTENCY_MISMATCH', errors: [{ field: 'idempotencyKey' }] });
    // Another merchant may use the same key.
    const tokB = await f.b.tokenOf('4111111111111111');
    expect((await f.post('/v1/evaluate', { ...body, paymentMethod: { ...(body.paymentMethod as Obj), cardNumber: tokB } }, f.b)).statusCode).toBe(200);

    const pending = evaluateBody(tok, { tx: SOFT });
    const now = clock.now();
    await db().insert(idempotencyRecords).values({ merchantId: f.a.merchantId, key: (pending.idempotencyKey as string).toLowerCase(), route: 'evaluate', requestHash: requestHash(asMerchant(pending, f.a)), state: 'in_flight', createdAt: now, expiresAt: new Date(now.getTime() + 86_400_000) });
    const busy = await f.post('/v1/evaluate', pending);
    expect(busy.statusCode).toBe(409);
    expect(busy.json().statusCode).toBe('ERR_API_IDEMPOTENCY_IN_FLIGHT');
    // An in-flight record whose instance died is taken over by the same request after a while.
    clock.advance(61_000);
    try {
      expect((await f.post('/v1/evaluate', pending)).statusCode).toBe(200);
    } finally {
      clock.set(FRIDAY);
    }
  });

  it('keeps orderId unique per merchant (ERR_API_DUPLICATE_ORDER_ID)', async () => {
    const tok = await f.a.tokenOf('4111111111111111');
    const body = evaluateBody(tok, { tx: SOFT });
    expect((await f.post('/v1/evaluate', body)).statusCode).toBe(200);
    const dup = await f.post('/v1/evaluate', { ...body, idempotencyKey: randomUUID() });
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toMatchObject({ statusCode: 'ERR_API_DUPLICATE_ORDER_ID', errors: [{ field: 'orderId' }] });
    const mit = await f.post('/v1/evaluate', { ...evaluateBody(tok, { mit: true }), orderId: body.orderId });
    expect(mit.json().statusCode).toBe('ERR_API_DUPLICATE_ORDER_ID');
  });

  it('refuses a key reused after its record was pruned, leaving the first order and its charge alone', async () => {
    const tok = await f.a.tokenOf('4111111111111111');
    const body = evaluateBody(tok, { tx: SOFT });
    const first = (await f.post('/v1/evaluate', body)).json();
    expect(first.status).toBe('APPROVED');
    await db().delete(idempotencyRecords).where(eq(idempotencyRecords.key, (body.idempotencyKey as string).toLowerCase()));
    const reused = await f.post('/v1/evaluate', { ...body, orderId: `ORD-${randomUUID()}` });
    expect(reused.statusCode).toBe(422);
    expect(reused.json().statusCode).toBe('ERR_API_IDEMPOTENCY_MISMATCH');
    const calls = await db().select().from(processorCalls).where(eq(processorCalls.reference, first.orderSessionKey));
    expect(calls.map((c) => c.operation)).toEqual(['authorize']);
  });

  it('voids the approval of the loser when two requests race for one orderId', async () => {
    const tok = await f.a.tokenOf('4111111111111111');
    const processor = f.t.api.orders.processor!;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let arrived = 0;
    f.t.api.orders.processor = { ...processor, authorize: async (r) => (arrived++, await held, processor.authorize(r)) };
    try {
      const one = evaluateBody(tok, { tx: SOFT });
      const two = { ...evaluateBody(tok, { tx: SOFT }), orderId: one.orderId };
      const answers = Promise.all([f.post('/v1/evaluate', one), f.post('/v1/evaluate', two)]);
      await waitFor(() => arrived === 2, { what: 'both requests at the processor' });
      release();
      const res = await answers;
      expect(res.map((r) => r.statusCode).sort()).toEqual([200, 409]);
      const lost = res.find((r) => r.statusCode === 409)!;
      expect(lost.json().statusCode).toBe('ERR_API_DUPLICATE_ORDER_ID');
      const all = await db().select().from(processorCalls);
      const won = res.find((r) => r.statusCode === 200)!.json().orderSessionKey as string;
      const loserRefs = [...new Set(all.filter((c) => c.reference !== won && c.operation === 'void').map((c) => c.reference))];
      expect(loserRefs).toHaveLength(1);
      expect(all.filter((c) => c.reference === won).map((c) => c.operation)).toEqual(['authorize']);
    } finally {
      f.t.api.orders.processor = processor;
    }
  });

  it('holds the sandbox amount bounds: more than 10 and less than 20000 cents', async () => {
    const tok = await f.a.tokenOf('4111111111111111');
    for (const amount of [10, 20000, 0]) {
      const res = await f.post('/v1/evaluate', evaluateBody(tok, { tx: { ...SOFT, amount } }));
      expect(res.statusCode, String(amount)).toBe(400);
      expect(res.json()).toMatchObject({ statusCode: 'ERR_MODEL_INVALID', errors: [{ field: 'transaction.amount', code: 'ERR_MODEL_RANGE' }] });
    }
    for (const amount of [11, 19999]) expect((await f.post('/v1/evaluate', evaluateBody(tok, { tx: { ...SOFT, amount } }))).statusCode).toBe(200);
  });

  it('refuses what is not a declined transaction, an invalid body, and an unreadable one', async () => {
    const tok = await f.a.tokenOf('4111111111111111');
    const approved = await f.post('/v1/evaluate', evaluateBody(tok, { top: { isDeclined: false } }));
    expect(approved.statusCode).toBe(400);
    expect(approved.json()).toMatchObject({ statusCode: 'ERR_API_NOT_DECLINED', errors: [{ field: 'isDeclined' }] });
    const invalid = await f.post('/v1/evaluate', { ...evaluateBody(tok), idempotencyKey: 'nope', payer: undefined });
    expect(invalid.statusCode).toBe(400);
    const fields = (invalid.json().errors as Obj[]).map((e) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['idempotencyKey', 'payer']));
    const garbled = await f.t.app.inject({ method: 'POST', url: '/v1/evaluate', payload: '{"isDeclined": tru', headers: { authorization: f.a.bearer, 'content-type': 'application/json' } });
    expect(garbled.statusCode).toBe(400);
    expect(garbled.json().statusCode).toBe('ERR_HTTP_BODY_INVALID');
  });

  it('needs a bearer token', async () => {
    const none = await f.t.app.inject({ method: 'POST', url: '/v1/evaluate', payload: evaluateBody('tok_x') });
    expect(none.statusCode).toBe(401);
    expect(none.json().statusCode).toBe('ERR_AUTH_TOKEN_MISSING');
    expect(none.headers['www-authenticate']).toBe('Bearer realm="rescued"');
    const bad = await f.t.app.inject({ method: 'POST', url: '/v1/evaluate', payload: evaluateBody('tok_x'), headers: { authorization: 'Bearer abc.def.ghi' } });
    expect(bad.statusCode).toBe(401);
    expect(bad.json().statusCode).toBe('ERR_AUTH_TOKEN_INVALID');
  });

  it("refuses a token that is not this merchant's, tokenizes a full test card number, refuses other numbers", async () => {
    const tokB = await f.b.tokenOf('4242424242424242');
    const foreign = await f.post('/v1/evaluate', evaluateBody(tokB, { tx: SOFT }));
    expect(foreign.statusCode).toBe(422);
    expect(foreign.json()).toMatchObject({ statusCode: 'ERR_VAULT_TOKEN_UNKNOWN', errors: [{ field: 'paymentMethod.cardNumber' }] });
    const full = await f.post('/v1/evaluate', evaluateBody('4242424242424242', { tx: SOFT, pm: { token: false, cardBinNumber: '424242', cardLast4Digits: '4242' } }));
    expect(full.statusCode, full.body).toBe(200);
    expect(full.json().status).toBe('APPROVED');
    const [o] = await db().select().from(orders).where(eq(orders.id, full.json().orderSessionKey));
    expect(o!.cardToken).toMatch(/^tok_/);
    expect(JSON.stringify(o!.request)).not.toContain('4242424242424242');
    const real = await f.post('/v1/evaluate', evaluateBody('4263982640269299', { tx: SOFT, pm: { token: false, cardBinNumber: '426398', cardLast4Digits: '9299' } }));
    expect(real.statusCode).toBe(422);
    expect(real.json().statusCode).toBe('ERR_VAULT_NOT_TEST_CARD');
    expect(real.body).not.toContain('4263982640269299');
  });

  it('requires the payer email of the test card that names one (ERR_VAULT_PAYER_EMAIL_REQUIRED)', async () => {
    const tok = await f.a.tokenOf('4000000000000010');
    const res = await f.post('/v1/evaluate', evaluateBody(tok, { tx: SOFT }));
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ statusCode: 'ERR_VAULT_PAYER_EMAIL_REQUIRED', errors: [{ field: 'payer.email' }] });
  });

  it('answers at the unversioned /evaluate and with repeated slashes', async () => {
    const tok = await f.a.tokenOf('4111111111111111');
    expect((await f.post('/evaluate', evaluateBody(tok, { tx: SOFT }))).json().status).toBe('APPROVED');
    expect((await f.post('//v1//evaluate', evaluateBody(tok, { tx: SOFT }))).json().status).toBe('APPROVED');
  });
});

describe.each(DB_KINDS)('POST /v1/evaluate without a processor on %s', (kind) => {
  it('answers 503 ERR_API_PROCESSOR_UNAVAILABLE for a CIT that needs an attempt, and frees the key', async () => {
    const t = await testApp(kind);
    try {
      const creds = await t.merchants.add({ name: 'No processor' });
      const merchantId = (await t.merchants.byMid(creds.mid)).id;
      const { token } = await t.tokens.issue({ merchantId, mid: creds.mid, clientId: creds.clientId });
      const card = (await t.vault.tokenize(merchantId, { number: '4111111111111111', month: 12, year: 2035, firstName: 'J', lastName: 'D' })).card.token;
      const body = evaluateBody(card, { tx: SOFT });
      const res = await t.app.inject({ method: 'POST', url: '/v1/evaluate', payload: asMerchant(body, creds) as object, headers: { authorization: `Bearer ${token}` } });
      expect(res.statusCode).toBe(503);
      expect(res.json().statusCode).toBe('ERR_API_PROCESSOR_UNAVAILABLE');
      expect(res.headers['retry-after']).toBeDefined();
      expect(await t.tdb.database.db.select().from(idempotencyRecords)).toHaveLength(0);
    } finally {
      await t.close();
    }
  });
});
