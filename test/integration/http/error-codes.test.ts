// Every code of the catalogue that the side-port can answer, each triggered over HTTP at
// least once here, in the one error body; the codes that never travel over HTTP (CLI,
// configuration, batch files, webhook delivery) are named, so a new code must be placed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { DB_KINDS } from '../../helpers/db.ts';
import { apiFixture, evaluateBody, SOFT, type ApiFixture } from '../../helpers/api.ts';
import { RescuedError } from '../../../src/errors.ts';
import { ERRORS } from '../../../src/catalogue.ts';
import { orders } from '../../../src/db/schema.ts';
import { createProcessorRouter } from '../../../src/processors/router.ts';
import { createAccountService } from '../../../src/processors/accounts.ts';
import { silentLog } from '../../helpers/db.ts';
import { startStripeFake } from '../../fakes/stripe/server.ts';
import { waitFor } from '../../helpers/wait.ts';

// The console's codes travel over HTTP, but from the console, which this app does not serve:
// test/integration/console/console.test.ts and cross-site.test.ts answer them.
const NOT_HTTP = /^ERR_(CONFIG|MERCHANT|INTAKE|WEBHOOK|PROCESSOR_ACCOUNT|CONSOLE)_|^ERR_(VAULT_ROTATE_INCOMPLETE|DB_NOT_MIGRATED|PURGE_BUSY)$/;

describe.each(DB_KINDS)('error codes over HTTP on %s', (kind) => {
  let f: ApiFixture;
  const seen = new Map<string, number>();
  /** Records the answer's code and every field code, after checking the one error body. */
  const note = (res: LightMyRequestResponse) => {
    const body = res.json();
    expect(body).toMatchObject({ success: false, result: 'Failed', statusCode: expect.stringMatching(/^ERR_/), message: expect.any(String), errors: expect.any(Array) });
    expect(res.statusCode).toBe(ERRORS[body.statusCode as keyof typeof ERRORS].status);
    seen.set(body.statusCode, res.statusCode);
    for (const e of body.errors as { code: string }[]) seen.set(e.code, seen.get(e.code) ?? 0);
    return body;
  };
  beforeAll(async () => {
    // Two failed authentications per client id, then 429 (addresses: high, the test has one).
    f = await apiFixture(kind, { api: { rateLimitPerSecond: 0.01, rateLimitBurst: 60 }, authThrottle: { failuresPerClient: 2, failuresPerAddress: 1000, failureWindowSeconds: 60 } });
  });
  afterAll(() => f.close());

  it('answers each code in the one error body with its catalogue status', async () => {
    const tok = await f.a.tokenOf('4111111111111111');
    const inject = (o: InjectOptions) => f.t.app.inject(o);
    // Authentication
    note(await inject({ method: 'POST', url: '/oauth2/token', payload: 'grant_type=client_credentials&client_id=x&client_secret=y', headers: { 'content-type': 'application/x-www-form-urlencoded' } }));
    note(await inject({ method: 'POST', url: '/oauth2/token', payload: 'client_id=x&client_secret=y', headers: { 'content-type': 'application/x-www-form-urlencoded' } }));
    note(await inject({ method: 'POST', url: '/oauth2/token', payload: 'grant_type=password&client_id=x&client_secret=y', headers: { 'content-type': 'application/x-www-form-urlencoded' } }));
    for (let i = 0; i < 2; i++) note(await inject({ method: 'POST', url: '/oauth2/token', payload: { appKey: 'rc_guessed', appSecret: 'wrong' } }));
    const throttled = note(await inject({ method: 'POST', url: '/oauth2/token', payload: { appKey: 'rc_guessed', appSecret: 'wrong' } }));
    expect(throttled.statusCode).toBe('ERR_AUTH_TOO_MANY_FAILURES');
    note(await inject({ method: 'POST', url: '/v1/evaluate', payload: {} }));
    note(await inject({ method: 'POST', url: '/v1/evaluate', payload: {}, headers: { authorization: 'Bearer x.y.z' } }));
    // HTTP
    note(await f.get('/v1/nowhere'));
    note(await inject({ method: 'DELETE', url: '/v1/evaluate', headers: { authorization: f.a.bearer } }));
    note(await inject({ method: 'POST', url: '/v1/evaluate', payload: '{', headers: { authorization: f.a.bearer, 'content-type': 'application/json' } }));
    note(await f.post('/v1/evaluate', { pad: 'x'.repeat(70_000) }));
    note(await inject({ method: 'POST', url: '/v1/evaluate', payload: '<a/>', headers: { authorization: f.a.bearer, 'content-type': 'application/xml' } }));
    f.t.draining.value = true;
    note(await f.post('/v1/evaluate', {}));
    f.t.draining.value = false;
    // Model
    note(await f.post('/v1/evaluate', { ...evaluateBody(tok), payer: undefined, isMIT: 'no', idempotencyKey: 'x', transaction: { ...(evaluateBody(tok).transaction as object), amount: 5 } }));
    note(await f.post('/v1/evaluate', evaluateBody(tok, { top: { orderId: '3782-822463-10005' } })));
    note(await f.post('/v1/evaluate', evaluateBody(tok, { tx: { timestampUtc: new Date(Date.now() + 86_400_000).toISOString() } })));
    const mit = (await f.post('/v1/evaluate', evaluateBody(tok, { mit: true }))).json().orderSessionKey as string;
    const approved = (await f.post('/v1/evaluate', evaluateBody(tok, { tx: SOFT }))).json().orderSessionKey as string;
    note(await f.post(`/v1/orders/${approved}/cancel`, {}));
    // Vault
    note(await inject({ method: 'POST', url: '/v1/tokenize?mid=x&environment=y', payload: {} }));
    const card = { first_name: 'A', last_name: 'B', number: '4111111111111111', month: '01', year: '2020' };
    note(await inject({ method: 'POST', url: `/v1/tokenize?mid=${f.a.mid}&environment=${encodeURIComponent(f.a.tokenizationKey)}`, payload: { payment_method: { credit_card: card } } }));
    note(await f.post('/v1/evaluate', evaluateBody('4263982640269299', { tx: SOFT, pm: { token: false } })));
    note(await f.post('/v1/evaluate', evaluateBody('tok_unknown', { tx: SOFT })));
    note(await f.post('/v1/evaluate', evaluateBody(await f.a.tokenOf('4000000000000010'), { tx: SOFT })));
    // API
    note(await f.post('/v1/evaluate', evaluateBody(tok, { top: { isDeclined: false } })));
    note(await f.post('/v1/evaluate', evaluateBody(tok, { tx: SOFT, top: { mid: f.b.mid } })));
    const body = evaluateBody(tok, { tx: SOFT });
    await f.post('/v1/evaluate', body);
    note(await f.post('/v1/evaluate', { ...body, idempotencyKey: crypto.randomUUID() }));
    note(await f.post('/v1/evaluate', { ...body, orderId: 'other' }));
    note(await f.post(`/v1/orders/${approved}/challenge`, { cvv: '123' }));
    note(await f.post(`/v1/orders/${mit}/refund`, { amount: 100 }));
    // Card updates: a final (or CIT) order, a card the order already had.
    note(await f.post(`/v1/orders/${approved}/payment-method`, { token: tok }));
    note(await f.post(`/v1/orders/${mit}/payment-method`, { token: tok }));
    note(await f.post(`/v1/orders/${approved}/refund`, { amount: 999_999 }));
    const [o] = await f.t.tdb.database.db.select().from(orders).where(eq(orders.id, approved));
    await f.t.api.orders.processor!.void({ idempotencyKey: `${approved}:v`, reference: approved, processorRef: o!.confirmationId!, currency: 'USD' });
    note(await f.post(`/v1/orders/${approved}/refund`, { amount: 100 }));
    const challenged = (await f.post('/v1/evaluate', evaluateBody(await f.a.tokenOf('4000000000000101'), { tx: SOFT }))).json().orderSessionKey as string;
    await f.t.tdb.database.db.update(orders).set({ leaseOwner: 'x', leaseExpiresAt: new Date(Date.now() + 60_000) }).where(eq(orders.id, challenged));
    note(await f.post(`/v1/orders/${challenged}/challenge`, { cvv: '123' }));
    await f.t.tdb.database.db.update(orders).set({ leaseOwner: null, leaseExpiresAt: null, expiresAt: new Date(Date.now() - 1000) }).where(eq(orders.id, challenged));
    note(await f.post(`/v1/orders/${challenged}/challenge`, { cvv: '123' }));
    const pending = evaluateBody(tok, { tx: SOFT });
    const processor = f.t.api.orders.processor;
    f.t.api.orders.processor = undefined;
    note(await f.post('/v1/evaluate', pending));
    f.t.api.orders.processor = processor;
    const { api } = f.t;
    const busy = api.transmits.accept;
    api.transmits.accept = () => {
      throw new RescuedError('ERR_API_TRANSMIT_BUSY');
    };
    note(await f.post('/v1/transmit', {}));
    // An unexpected failure: logged, answered ERR_INTERNAL without its details.
    api.transmits.accept = () => {
      throw new Error('boom');
    };
    const internal = note(await f.post('/v1/transmit', {}));
    expect(internal.message).not.toContain('boom');
    api.transmits.accept = busy;
    // The in-flight key: a request held at the processor while its twin arrives.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let atProcessor = false;
    f.t.api.orders.processor = { ...processor!, authorize: async (r) => ((atProcessor = true), await held, processor!.authorize(r)) };
    const slow = evaluateBody(tok, { tx: SOFT });
    const first = f.post('/v1/evaluate', slow);
    await waitFor(() => atProcessor, { what: 'the first request at the processor' });
    note(await f.post('/v1/evaluate', slow));
    release();
    expect((await first).statusCode).toBe(200);
    f.t.api.orders.processor = processor;
    // Production: the merchant's own accounts, through the real router and a local Stripe.
    // Production refuses test-mode keys (ERR_PROCESSOR_ACCOUNT_TEST_MODE): the fake takes a live one.
    const stripe = await startStripeFake({ key: 'sk_live_errorcodes12345678' });
    try {
      const settings = { name: 'sandbox' as const, latencyMs: 0, concurrency: 8, ratePerSecond: 100, timeoutMs: 2000, accountConcurrency: 4, accountRatePerSecond: 100, breakerFailures: 10, breakerCooldownMs: 1000, reconcileAfterMs: 1000, reconcileTimeoutMs: 60_000, gatewayUrls: { stripe: stripe.url }, acknowledgeGatewayUrls: true };
      const db = f.t.tdb.database.db;
      const router = () => createProcessorRouter({ db, ring: f.t.keyRing, vault: f.t.vault, sandbox: undefined, mode: 'production', settings, log: silentLog });
      f.t.api.orders.processor = router();
      note(await f.post('/v1/evaluate', evaluateBody(tok, { tx: SOFT })));
      const accounts = createAccountService({ db, ring: f.t.keyRing, mode: 'production' });
      await accounts.add(f.a.mid, { type: 'stripe', label: 'no-raw-cards', credentials: { secretKey: stripe.key } });
      // The router reads a merchant's accounts again after 5 s; a fresh router reads them now.
      f.t.api.orders.processor = router();
      note(await f.post('/v1/evaluate', evaluateBody(tok, { tx: SOFT })));
      await accounts.add(f.a.mid, { type: 'stripe', label: 'wrong-key', isDefault: true, credentials: { secretKey: 'sk_live_wrongwrongwrong', rawCardData: true } });
      f.t.api.orders.processor = router();
      note(await f.post('/v1/evaluate', evaluateBody(tok, { tx: SOFT })));
    } finally {
      f.t.api.orders.processor = processor;
      await stripe.close();
    }
    // Reports
    note(await f.get('/v1/reports/recovery?since=soon'));
    note(await f.get('/v1/orders?cursor=not-a-cursor'));
    // The bucket (burst 60, next to no refill) runs dry.
    let limited;
    for (let i = 0; i < 80 && !limited; i++) {
      const res = await f.post('/v1/outcome', { orderSessionKey: mit });
      if (res.statusCode === 429) limited = res;
    }
    note(limited!);
    expect(limited!.headers['retry-after']).toMatch(/^\d+$/);

    const httpCodes = Object.keys(ERRORS).filter((c) => !NOT_HTTP.test(c));
    expect([...seen.keys()].filter((c) => c.startsWith('ERR_')).sort()).toEqual(expect.arrayContaining(httpCodes.sort()));
    expect(httpCodes.filter((c) => !seen.has(c))).toEqual([]);
  });
});
