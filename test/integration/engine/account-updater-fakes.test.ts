// The gateways' account updaters end to end through the engine, on each database: the REAL
// Stripe connector against the local Stripe fake and the REAL Adyen connector against the local
// Adyen fake, each configured as a merchant's gateway account (as `rescued processor add` does),
// with the order naming the gateway's stored card (additionalFields processor.paymentMethod /
// processor.customer). The gateway declines the card and says it was updated (Stripe: the saved
// PaymentMethod renewed or replaced in place after expired_card / lost_card, automatic card
// updates; Adyen: realtimeAccountUpdaterStatus in additionalData); the engine's next attempt goes
// out at once on the updated credential, the gateway sees it name the updated stored card, the
// order ends APPROVED recovered by the account updater, with one charge at the gateway and the
// card as it was never charged again.
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asc, eq } from 'drizzle-orm';
import { Value } from '@sinclair/typebox/value';
import { DB_KINDS, silentLog } from '../../helpers/db.ts';
import { engineConfig, engineFixture, insertTestOrders, type EngineFixture } from '../../helpers/engine.ts';
import { ManualClock } from '../../../src/clock.ts';
import { ConfigSchema } from '../../../src/config/schema.ts';
import type { ResolvedConfig } from '../../../src/config/index.ts';
import { attempts, orders, webhookEvents } from '../../../src/db/schema.ts';
import { createEngine, type Engine } from '../../../src/engine/index.ts';
import { createAccountService } from '../../../src/processors/accounts.ts';
import { createProcessorRouter } from '../../../src/processors/router.ts';
import { sandboxTestCards } from '../../../src/vault/test-cards.ts';
import { startAdyenFake, type AdyenFake } from '../../fakes/adyen/server.ts';
import { startStripeFake, type StripeFake } from '../../fakes/stripe/server.ts';

const T0 = new Date('2026-03-02T10:00:00Z');
const DAY_MS = 86_400_000;
const CARD = '4242424242424242';

/** An engine fixture whose merchant charges through one gateway account pointing at a fake. */
async function gatewayMerchant(f: EngineFixture, type: 'stripe' | 'adyen', url: string, credentials: Record<string, unknown>, clock: ManualClock): Promise<Engine> {
  const settings: ResolvedConfig['processor'] = { ...(Value.Default(ConfigSchema.properties.processor, {}) as ResolvedConfig['processor']), timeoutMs: 5000, gatewayUrls: { [type]: url } };
  await createAccountService({ db: f.db, ring: f.ring, mode: 'sandbox' }).add(f.mid, { type, label: `${type}-main`, credentials });
  const processor = createProcessorRouter({ db: f.db, ring: f.ring, vault: f.vault, sandbox: undefined, mode: 'sandbox', settings, log: silentLog });
  // awaitUpdatedCard off: the updater's card is charged whatever the merchant's waiting setting says.
  return createEngine({ db: f.db, processor, clock, log: silentLog, config: engineConfig({ awaitUpdatedCard: 'off' }), testMode: true });
}

/** A PENDING rebill due now on the gateway's stored card `method` of `customer`. */
async function storedCardOrder(f: EngineFixture, now: Date, stored?: { method: string; customer: string }): Promise<string> {
  const [id] = await insertTestOrders(f.db, [{
    card: sandboxTestCards().find(CARD)!, token: await f.tokenOf(CARD), merchantId: f.merchantId, declineCode: '05', declineSource: 'iso8583',
    createdAt: new Date(now.getTime() - DAY_MS), expiresAt: new Date(now.getTime() + 20 * DAY_MS), status: 'PENDING', nextAttemptAt: now,
    ...(stored ? { additionalFields: [{ key: 'processor.paymentMethod', value: stored.method }, { key: 'processor.customer', value: stored.customer }] } : {}),
  }]);
  return id!;
}

const orderOf = async (f: EngineFixture, id: string) => (await f.db.select().from(orders).where(eq(orders.id, id)))[0]!;
const attemptsOf = (f: EngineFixture, id: string) => f.db.select().from(attempts).where(eq(attempts.orderSessionKey, id)).orderBy(asc(attempts.attemptNo));
const eventsOf = async (f: EngineFixture, id: string) => (await f.db.select().from(webhookEvents).where(eq(webhookEvents.orderSessionKey, id)).orderBy(asc(webhookEvents.createdAt))).map((e) => ({ type: e.type, payload: e.payload as { EventData: Record<string, unknown> } }));

/** The decline, then the updated credential at once (same clock: no planned wait), approved. */
async function runTwice(engine: Engine): Promise<void> {
  expect(await engine.runOnce()).toBe(1);
  expect(await engine.runOnce()).toBe(1);
  expect(await engine.runOnce()).toBe(0);
}

describe.each(DB_KINDS)('the Stripe account updater through the engine on %s', (kind) => {
  let f: EngineFixture;
  let stripe: StripeFake;
  let engine: Engine;
  const clock = new ManualClock(T0);

  beforeAll(async () => {
    [f, stripe] = await Promise.all([engineFixture(kind), startStripeFake()]);
    engine = await gatewayMerchant(f, 'stripe', stripe.url, { secretKey: stripe.key }, clock);
  });
  afterAll(async () => {
    await engine?.stop();
    await Promise.all([f?.close(), stripe?.close()]);
  });

  const intentsFor = (id: string) => stripe.requests.filter((r) => r.method === 'POST' && r.path === '/v1/payment_intents' && (r.body.metadata as Record<string, string>).rescued_order === id);
  const chargesFor = (id: string) => [...stripe.charges.values()].filter((c) => c.metadata.rescued_order === id);

  it.each([
    { name: 'expired_card, the PaymentMethod renewed', pm: 'pm_renewed', old: { exp_month: 1, exp_year: 2026, last4: '4242', fingerprint: 'fpA' }, decline: { declineCode: 'expired_card', networkDeclineCode: '54' }, update: { exp_month: 2, exp_year: 2030 }, kind: 'expiry' },
    { name: 'lost_card, the PaymentMethod replaced', pm: 'pm_replaced', old: { exp_month: 9, exp_year: 2027, last4: '1111', fingerprint: 'fpOld' }, decline: { declineCode: 'lost_card', networkDeclineCode: '41' }, update: { last4: '5556', fingerprint: 'fpNew', exp_month: 8, exp_year: 2031 }, kind: 'replacement' },
  ])('$name: the next attempt charges the updated card at once, one charge, recovered by the account updater', async ({ pm, old, decline, update, kind: updateKind }) => {
    clock.advance(31 * DAY_MS); // each case's card windows start afresh
    stripe.addPaymentMethod(pm, old);
    stripe.script({ kind: 'decline', ...decline, updateCard: update });
    const id = await storedCardOrder(f, clock.now(), { method: pm, customer: 'cus_payer' });
    const tok = (await orderOf(f, id)).cardToken;
    await runTwice(engine);

    const o = await orderOf(f, id);
    expect(o).toMatchObject({ status: 'APPROVED', recoveredBy: 'account_updater', attemptCount: 2, credential: `${tok}~au:${pm}` });
    const tries = await attemptsOf(f, id);
    expect(tries.map((a) => [a.status, a.cardToken])).toEqual([['declined', tok], ['approved', `${tok}~au:${pm}`]]);
    // The fake saw the decline on the card as it was, then the updated stored card named: one charge, on the new card.
    const sent = intentsFor(id);
    expect(sent.map((r) => [r.headers['idempotency-key'], r.body.payment_method, r.body.customer, r.body.payment_method_data])).toEqual([[`${id}:1`, pm, 'cus_payer', undefined], [`${id}:2`, pm, 'cus_payer', undefined]]);
    const charged = chargesFor(id);
    expect(charged).toHaveLength(1);
    expect(charged[0]).toMatchObject({ key: `${id}:2`, amount: o.amount, card: { ...old, ...update } });
    // Nothing else was charged for the order: no charge on the card as it was, and no raw vault card sent.
    expect([...stripe.charges.values()].filter((c) => c.card.fingerprint === old.fingerprint && c.card.exp_year === old.exp_year && c.card.last4 === old.last4)).toEqual([]);
    const events = await eventsOf(f, id);
    expect(events.map((e) => e.type)).toEqual(['order.card_updated', 'order.completed']);
    expect(events[0]!.payload.EventData).toMatchObject({ card: { source: 'account_updater', kind: updateKind, last4: update.last4 ?? old.last4, expMonth: update.exp_month, expYear: update.exp_year } });
    expect(events[1]!.payload.EventData).toMatchObject({ recoveredBy: 'account_updater', attempts: 2 });
    expect(JSON.stringify(events)).not.toContain(CARD);
  });
});

describe.each(DB_KINDS)('the Adyen Real Time Account Updater through the engine on %s', (kind) => {
  let f: EngineFixture;
  let adyen: AdyenFake;
  let engine: Engine;
  const clock = new ManualClock(T0);
  // The connector made by the router trusts the system's CAs (NODE_EXTRA_CA_CERTS in the daemon):
  // here the fake's own certificate is added for the test's duration.
  const systemCAs = getCACertificates('default');

  beforeAll(async () => {
    [f, adyen] = await Promise.all([engineFixture(kind), startAdyenFake({ rawCardData: true })]);
    setDefaultCACertificates([...systemCAs, adyen.ca]);
    engine = await gatewayMerchant(f, 'adyen', adyen.url, { apiKey: adyen.apiKey, merchantAccount: adyen.merchantAccount, environment: 'test', returnUrl: 'https://shop.example/return', rawCardData: true }, clock);
  });
  afterAll(async () => {
    setDefaultCACertificates(systemCAs);
    await engine?.stop();
    await Promise.all([f?.close(), adyen?.close()]);
  });

  const paymentsFor = (id: string) => adyen.requests.filter((r) => r.path === '/payments' && r.body.merchantOrderReference === id);
  const chargesFor = (id: string) => [...adyen.charges.values()].filter((c) => c.merchantOrderReference === id);

  it('a stored card refused with CardChanged: the next attempt names the updated token, one authorisation, recovered by the account updater', async () => {
    const token = 'M5N7TQ4TG5PFWR50';
    adyen.updateCard(token, { status: 'CardChanged', expiryDate: '11/2031', cardSummary: '5556' });
    adyen.script({ kind: 'refuse', code: '6', reason: 'Expired Card', raw: '54 : Expired card' });
    const id = await storedCardOrder(f, clock.now(), { method: token, customer: 'shopper-42' });
    const tok = (await orderOf(f, id)).cardToken;
    await runTwice(engine);

    const o = await orderOf(f, id);
    expect(o).toMatchObject({ status: 'APPROVED', recoveredBy: 'account_updater', attemptCount: 2, credential: `${tok}~au:${token}` });
    expect((await attemptsOf(f, id)).map((a) => [a.status, a.cardToken, a.responseCode])).toEqual([['declined', tok, '54'], ['approved', `${tok}~au:${token}`, '00']]);
    const sent = paymentsFor(id);
    expect(sent.map((r) => [r.headers['idempotency-key'], r.body.paymentMethod, r.body.shopperReference, r.body.shopperInteraction])).toEqual([
      [`${id}:1`, expect.objectContaining({ type: 'scheme', storedPaymentMethodId: token }), 'shopper-42', 'ContAuth'],
      [`${id}:2`, expect.objectContaining({ type: 'scheme', storedPaymentMethodId: token }), 'shopper-42', 'ContAuth'],
    ]);
    expect(sent.every((r) => (r.body.paymentMethod as { number?: string }).number === undefined)).toBe(true);
    const charged = chargesFor(id);
    expect(charged).toEqual([expect.objectContaining({ key: `${id}:2`, amount: o.amount })]);
    const events = await eventsOf(f, id);
    expect(events.map((e) => e.type)).toEqual(['order.card_updated', 'order.completed']);
    expect(events[0]!.payload.EventData).toMatchObject({ card: { source: 'account_updater', kind: 'replacement', last4: '5556', expMonth: 11, expYear: 2031 } });
    expect(events[1]!.payload.EventData).toMatchObject({ recoveredBy: 'account_updater' });
  });

  it('a vault card whose expiry the updater renewed inside the payment: authorised in that one call, recovered by the account updater', async () => {
    clock.advance(31 * DAY_MS);
    adyen.updateCard(CARD, { status: 'CardExpiryChanged', expiryDate: '3/2036', cardSummary: '4242' });
    const id = await storedCardOrder(f, clock.now());
    expect(await engine.runOnce()).toBe(1);
    expect(await orderOf(f, id)).toMatchObject({ status: 'APPROVED', recoveredBy: 'account_updater', attemptCount: 1 });
    const sent = paymentsFor(id);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body.paymentMethod).toMatchObject({ type: 'scheme', expiryMonth: '12', expiryYear: '2035' });
    expect(chargesFor(id)).toHaveLength(1);
    expect((await eventsOf(f, id)).map((e) => e.type)).toEqual(['order.card_updated', 'order.completed']);
  });
});
