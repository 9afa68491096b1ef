// CIT evaluate through a merchant's own gateway account without idempotency keys (NMI, local
// fake), on both databases: a call that charged but got no answer is the client's 503; the
// client's retry with the same idempotencyKey finds that charge by the attempt's key and
// answers APPROVED with it, never charging twice. The answer's raw code and the account are
// on the order's attempt.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Value } from '@sinclair/typebox/value';
import { DB_KINDS, silentLog } from '../../helpers/db.ts';
import { apiFixture, evaluateBody, SOFT, type ApiFixture } from '../../helpers/api.ts';
import { ConfigSchema } from '../../../src/config/schema.ts';
import type { ResolvedConfig } from '../../../src/config/index.ts';
import { createAccountService } from '../../../src/processors/accounts.ts';
import { createProcessorRouter } from '../../../src/processors/router.ts';
import { startNmiFake, type NmiFake } from '../../fakes/nmi/server.ts';

describe.each(DB_KINDS)('CIT through a gateway without idempotency on %s', (kind) => {
  let f: ApiFixture;
  let nmi: NmiFake;

  beforeAll(async () => {
    [f, nmi] = await Promise.all([apiFixture(kind), startNmiFake()]);
    await createAccountService({ db: f.t.tdb.database.db, ring: f.t.keyRing, mode: 'sandbox' }).add(f.a.mid, { type: 'nmi', label: 'nmi', credentials: { securityKey: nmi.key } });
    const settings = { ...(Value.Default(ConfigSchema.properties.processor, {}) as ResolvedConfig['processor']), timeoutMs: 400, gatewayUrls: { nmi: nmi.url } };
    f.t.api.orders.processor = createProcessorRouter({ db: f.t.tdb.database.db, ring: f.t.keyRing, vault: f.t.vault, sandbox: undefined, mode: 'sandbox', settings, log: silentLog });
  });
  afterAll(async () => Promise.all([f?.close(), nmi?.close()]));

  it('a retry after an unanswered charge gets that charge, not a second one', async () => {
    const body = evaluateBody(await f.a.tokenOf('4242424242424242'), { tx: SOFT });
    nmi.script({ kind: 'reset_after_charge' });
    const first = await f.post('/v1/evaluate', body);
    expect(first.statusCode).toBe(503);
    expect(first.json()).toMatchObject({ statusCode: 'ERR_API_PROCESSOR_UNAVAILABLE' });
    const again = await f.post('/v1/evaluate', body);
    expect(again.statusCode).toBe(200);
    const answer = again.json() as { status: string; orderSessionKey: string };
    expect(answer.status).toBe('APPROVED');
    const sales = nmi.requests.filter((r) => r.body.type === 'sale' && r.body.orderid === `${answer.orderSessionKey}:1`);
    expect(sales).toHaveLength(1);
    expect([...nmi.charges.values()].filter((c) => c.orderid === `${answer.orderSessionKey}:1`)).toHaveLength(1);
    expect(sales[0]!.body).toMatchObject({ initiated_by: 'customer' });
    const order = (await f.get(`/v1/orders/${answer.orderSessionKey}`)).json() as { confirmationId: string; attemptHistory: { gateway: unknown; processorRef: string }[] };
    expect(order.attemptHistory).toEqual([expect.objectContaining({ processorRef: order.confirmationId, gateway: expect.objectContaining({ account: 'nmi', type: 'nmi', route: 'default', rawCode: '100' }) })]);
  });

  it('a decline keeps the gateway\'s own code beside the ISO code and its class', async () => {
    nmi.script({ kind: 'decline', code: '202', text: 'Insufficient funds' });
    const res = await f.post('/v1/evaluate', evaluateBody(await f.a.tokenOf('4242424242424242'), { tx: SOFT }));
    const answer = res.json() as { status: string; reason: string; orderSessionKey: string };
    expect(answer).toMatchObject({ status: 'DECLINED', reason: 'insufficient_funds' });
    const order = (await f.get(`/v1/orders/${answer.orderSessionKey}`)).json() as { attemptHistory: Record<string, unknown>[] };
    expect(order.attemptHistory[0]).toMatchObject({ responseCode: '51', reason: 'insufficient_funds', gateway: expect.objectContaining({ rawCode: '202', rawMessage: 'Insufficient funds' }) });
  });
});
