// The engine charging through a merchant's own gateway account (here a local Stripe written from
// its API reference), on both databases: the account and why it was chosen are written on the
// attempt; an unknown outcome keeps the attempt in flight until it is reconciled (one charge);
// a refusal that says nothing about the card is no attempt at all; an attempt nobody can
// reconcile parks its order for the operator.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { Value } from '@sinclair/typebox/value';
import { DB_KINDS, silentLog } from '../../helpers/db.ts';
import { engineConfig, engineFixture, insertTestOrders, type EngineFixture } from '../../helpers/engine.ts';
import { ManualClock } from '../../../src/clock.ts';
import { ConfigSchema } from '../../../src/config/schema.ts';
import type { ResolvedConfig } from '../../../src/config/index.ts';
import { attempts, orders } from '../../../src/db/schema.ts';
import { createEngine } from '../../../src/engine/index.ts';
import { createAccountService } from '../../../src/processors/accounts.ts';
import { createProcessorRouter } from '../../../src/processors/router.ts';
import { reconcileAgain } from '../../../src/db/queries/reconcile-again.ts';
import { sandboxTestCards } from '../../../src/vault/test-cards.ts';
import { startStripeFake, type StripeFake } from '../../fakes/stripe/server.ts';

const T0 = new Date('2026-03-02T10:00:00Z');
const EXPIRY = new Date('2026-03-30T00:00:00Z');
const CARD = '4242424242424242';
const card = (n: string) => sandboxTestCards().find(n)!;

describe.each(DB_KINDS)('engine through a gateway account on %s', (kind) => {
  let f: EngineFixture;
  let stripe: StripeFake;
  let clock: ManualClock;
  let settings: ResolvedConfig['processor'];

  beforeAll(async () => {
    // A live key: production refuses test-mode ones.
    [f, stripe] = await Promise.all([engineFixture(kind, { poolSize: 4 }), startStripeFake({ key: 'sk_live_enginegateways1234' })]);
    clock = new ManualClock(T0);
    settings = { ...(Value.Default(ConfigSchema.properties.processor, {}) as ResolvedConfig['processor']), timeoutMs: 400, gatewayUrls: { stripe: stripe.url } };
    await createAccountService({ db: f.db, ring: f.ring, mode: 'production' }).add(f.mid, { type: 'stripe', label: 'stripe-main', credentials: { secretKey: stripe.key, rawCardData: true } });
  });
  afterAll(async () => Promise.all([f?.close(), stripe?.close()]));
  beforeEach(() => {
    stripe.fallback({ kind: 'approve' });
    clock.set(T0);
  });

  const engine = (over: Parameters<typeof engineConfig>[0] = {}) =>
    createEngine({
      db: f.db, clock, log: silentLog, config: engineConfig({ reconcileAfterMs: 60_000, reconcileTimeoutMs: 3_600_000, ...over }),
      processor: createProcessorRouter({ db: f.db, ring: f.ring, vault: f.vault, sandbox: undefined, mode: 'production', settings, log: silentLog }),
    });
  const pending = async () => {
    const [id] = await insertTestOrders(f.db, [{ card: card(CARD), token: await f.tokenOf(CARD), merchantId: f.merchantId, createdAt: new Date(T0.getTime() - 86_400_000), expiresAt: EXPIRY, status: 'PENDING', nextAttemptAt: T0 }]);
    return id!;
  };
  const orderOf = async (id: string) => (await f.db.select().from(orders).where(eq(orders.id, id)))[0]!;
  const attemptsOf = (id: string) => f.db.select().from(attempts).where(eq(attempts.orderSessionKey, id));
  const chargesFor = (id: string) => [...stripe.charges.values()].filter((c) => c.metadata.rescued_order === id);

  it('charges through the default account and writes the account, the route and the gateway\'s own words on the attempt', async () => {
    const id = await pending();
    expect(await engine().runOnce()).toBe(1);
    expect(await orderOf(id)).toMatchObject({ status: 'APPROVED', attemptCount: 1 });
    const [a] = await attemptsOf(id);
    expect(a).toMatchObject({ status: 'approved', route: 'default', rawCode: 'succeeded', networkTransactionId: expect.stringMatching(/^ntid_/), accountId: expect.any(String), unknownSince: null });
    const sent = stripe.requests.filter((r) => r.path === '/v1/payment_intents').at(-1)!;
    expect(sent.headers['idempotency-key']).toBe(`${id}:1`);
    expect(sent.body).toMatchObject({ off_session: 'true', payment_method_data: { card: { number: CARD } } });
    expect(chargesFor(id)).toHaveLength(1);
  });

  it('a reset after the charge: the attempt stays in flight, then the same key is sent again and the one charge is recorded', async () => {
    const id = await pending();
    // The reset call is the only one until the reconciliation: stripe-node does not send it again by itself (stripe/transport.ts).
    stripe.script({ kind: 'reset_after_charge' });
    const e = engine();
    expect(await e.runOnce()).toBe(0);
    expect(await orderOf(id)).toMatchObject({ status: 'PENDING', attemptCount: 0 });
    const [unknown] = await attemptsOf(id);
    expect(unknown).toMatchObject({ status: 'in_flight', unknownSince: T0, accountId: expect.any(String) });
    expect(chargesFor(id)).toHaveLength(1);
    expect(stripe.requests.filter((r) => r.headers['idempotency-key'] === `${id}:1`)).toHaveLength(1);
    // Nothing happens for the order before reconcileAfterMs, and the sweep does not expire it.
    expect(await e.runOnce()).toBe(0);
    clock.advance(60_000);
    expect(await e.runOnce()).toBe(1);
    expect(await orderOf(id)).toMatchObject({ status: 'APPROVED', attemptCount: 1 });
    expect(await attemptsOf(id)).toEqual([expect.objectContaining({ status: 'approved', unknownSince: null, idempotencyKey: `${id}:1` })]);
    expect(chargesFor(id)).toHaveLength(1);
    expect(stripe.requests.filter((r) => r.headers['idempotency-key'] === `${id}:1`)).toHaveLength(2);
  });

  it('a refusal that says nothing about the card (429) leaves no attempt behind and the order tries again later', async () => {
    const id = await pending();
    stripe.script({ kind: 'status', status: 429 });
    const e = engine();
    expect(await e.runOnce()).toBe(0);
    expect(await orderOf(id)).toMatchObject({ status: 'PENDING', attemptCount: 0 });
    expect(await attemptsOf(id)).toEqual([]);
    clock.advance(60_000);
    expect(await e.runOnce()).toBe(1);
    expect(await orderOf(id)).toMatchObject({ status: 'APPROVED', attemptCount: 1 });
    expect(chargesFor(id)).toHaveLength(1);
  });

  it('an outcome still unknown after reconcileTimeoutMs parks the order for the operator, until `orders reconcile` sends it back', async () => {
    const id = await pending();
    stripe.fallback({ kind: 'timeout' });
    const e = engine({ reconcileAfterMs: 1000, reconcileTimeoutMs: 5000 });
    expect(await e.runOnce()).toBe(0);
    clock.advance(6000);
    expect(await e.runOnce()).toBe(0);
    expect(await orderOf(id)).toMatchObject({ status: 'PENDING', nextAttemptAt: null, statusReason: 'unreconciled' });
    expect(await attemptsOf(id)).toEqual([expect.objectContaining({ status: 'in_flight', unknownSince: T0 })]);
    clock.set(EXPIRY.getTime() - 86_400_000);
    await e.sweepOnce();
    expect(await orderOf(id)).toMatchObject({ status: 'PENDING', statusReason: 'unreconciled' });
    expect(await e.runOnce()).toBe(0);
    // The operator fixed the gateway: \`rescued orders reconcile\` sends the attempt back, same key.
    stripe.fallback({ kind: 'approve' });
    expect(await reconcileAgain(f.db, id, clock.now())).toBe('queued');
    expect(await e.runOnce()).toBe(1);
    expect(await orderOf(id)).toMatchObject({ status: 'APPROVED', attemptCount: 1 });
    expect(await attemptsOf(id)).toEqual([expect.objectContaining({ status: 'approved', idempotencyKey: `${id}:1` })]);
    expect(chargesFor(id)).toHaveLength(1);
    expect(await reconcileAgain(f.db, id, clock.now())).toBe('not_parked');
  });

  it('a parked order past its deadline stays parked: no sweep ends an attempt that may have charged', async () => {
    const id = await pending();
    stripe.fallback({ kind: 'timeout' });
    const e = engine({ reconcileAfterMs: 1000, reconcileTimeoutMs: 5000 });
    await e.runOnce();
    clock.advance(6000);
    await e.runOnce();
    clock.set(EXPIRY.getTime() + 1000);
    await e.sweepOnce();
    expect(await orderOf(id)).toMatchObject({ status: 'PENDING', statusReason: 'unreconciled' });
  });
});
