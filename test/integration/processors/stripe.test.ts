// The Stripe connector against a local fake written from Stripe's API reference: the exact
// fields sent for CIT, MIT-recurring and MIT-unscheduled, for vault cards and Stripe-stored
// payment methods; answers mapped (approval, declines with network codes, 3-D Secure); each
// failure kind; refunds, cancels, look-up and the credentials test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayError, type ChargeRequest } from '../../../src/processors/connector.ts';
import { createStripeConnector } from '../../../src/processors/stripe/index.ts';
import { startStripeFake, type StripeFake } from '../../fakes/stripe/server.ts';

const PAN = '4242424242424242';
let n = 0;
const charge = (over: Partial<ChargeRequest> = {}): ChargeRequest => ({
  idempotencyKey: `0f8fad5b-d9cb-469f-a165-70867728950e:${++n}`, reference: '0f8fad5b-d9cb-469f-a165-70867728950e', orderId: 'ORD-1',
  amount: 1999, currency: 'USD', card: { number: PAN, expMonth: 12, expYear: 2030, holderName: 'Jane Doe' },
  initiator: 'merchant', storedCredential: 'recurring', ...over,
});

describe('Stripe connector', () => {
  let fake: StripeFake;
  let stripe: ReturnType<typeof createStripeConnector>;
  beforeAll(async () => {
    fake = await startStripeFake();
    stripe = createStripeConnector({ secretKey: fake.key, rawCardData: true }, { timeoutMs: 500, baseUrl: fake.url });
  });
  afterAll(async () => fake?.close());
  const last = () => fake.requests.at(-1)!;

  it('MIT recurring with a vault card: off_session, stored_credential_usage, the card, the key as Idempotency-Key and metadata', async () => {
    const req = charge();
    const answer = await stripe.authorize(req);
    expect(answer).toMatchObject({ approved: true, responseCode: '00', processorRef: expect.stringMatching(/^pi_/), networkTransactionId: expect.stringMatching(/^ntid_/) });
    expect(last().headers['idempotency-key']).toBe(req.idempotencyKey);
    expect(last().body).toEqual({
      amount: '1999', currency: 'usd', confirm: 'true', off_session: 'true',
      payment_method_data: { type: 'card', card: { number: PAN, exp_month: '12', exp_year: '2030' }, billing_details: { name: 'Jane Doe' } },
      payment_method_options: { card: { stored_credential_usage: 'recurring' } },
      allowed_payment_method_types: { 0: 'card' },
      metadata: { rescued_key: req.idempotencyKey, rescued_order: req.reference, order_id: 'ORD-1' },
      expand: { 0: 'latest_charge' },
    });
  });

  it('MIT unscheduled with a Stripe-stored payment method: payment_method and customer, no card data', async () => {
    await stripe.authorize(charge({ card: undefined, gatewayMethod: { paymentMethod: 'pm_123', customer: 'cus_9' }, storedCredential: 'unscheduled' }));
    const body = last().body;
    expect(body).toMatchObject({ payment_method: 'pm_123', customer: 'cus_9', off_session: 'true', payment_method_options: { card: { stored_credential_usage: 'unscheduled' } } });
    expect(body.payment_method_data).toBeUndefined();
  });

  it('CIT: on-session, the challenge CVV sent once, 3-D Secure results passed through', async () => {
    await stripe.authorize(charge({ initiator: 'customer', storedCredential: undefined, cvv: '737', threeDSecure: { version: '2.2.0', eci: '05', authenticationValue: 'AAABBEg0VhI0VniQEjRWAAAAAAA=', dsTransactionId: 'f25084f0-5b16-4c0a-ae5d-b24808a95e4b' } }));
    const body = last().body as Record<string, Record<string, Record<string, unknown>>>;
    expect(body.off_session).toBeUndefined();
    expect(body.payment_method_data!.card).toMatchObject({ cvc: '737' });
    expect(body.payment_method_options!.card).toEqual({ three_d_secure: { version: '2.2.0', electronic_commerce_indicator: '05', cryptogram: 'AAABBEg0VhI0VniQEjRWAAAAAAA=', transaction_id: 'f25084f0-5b16-4c0a-ae5d-b24808a95e4b' } });
  });

  it('maps a decline with the raw network code and the advice code', async () => {
    fake.script({ kind: 'decline', declineCode: 'insufficient_funds', networkDeclineCode: '51', networkAdviceCode: '24' });
    expect(await stripe.authorize(charge())).toMatchObject({ approved: false, responseCode: '51', adviceCode: '24', rawCode: 'insufficient_funds', processorRef: expect.stringMatching(/^pi_/) });
    fake.script({ kind: 'decline', declineCode: 'lost_card' });
    expect(await stripe.authorize(charge())).toMatchObject({ approved: false, responseCode: '43', rawCode: 'lost_card' });
  });

  it('maps requires_action to a 3-D Secure challenge', async () => {
    fake.script({ kind: 'requires_action' });
    expect(await stripe.authorize(charge({ initiator: 'customer' }))).toMatchObject({ approved: false, challenge: '3ds', responseCode: '1A' });
  });

  it.each([
    [{ kind: 'status', status: 429 } as const, 'rejected'],
    [{ kind: 'status', status: 400 } as const, 'rejected'],
    [{ kind: 'status', status: 500 } as const, 'unknown'],
    [{ kind: 'status', status: 409 } as const, 'unknown'],
    [{ kind: 'timeout' } as const, 'unknown'],
    [{ kind: 'reset' } as const, 'unknown'],
    [{ kind: 'malformed' } as const, 'unknown'],
  ])('a %o is a GatewayError of kind %s, naming no card data', async (behaviour, kind) => {
    fake.script(behaviour);
    const err = await stripe.authorize(charge()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect(err).toMatchObject({ kind });
    expect(JSON.stringify({ m: (err as Error).message, c: String((err as Error).cause) })).not.toContain(PAN);
  });

  it('bad credentials are rejected; an unreachable Stripe is not_sent', async () => {
    const wrong = createStripeConnector({ secretKey: 'sk_test_wrongwrongwrong' }, { timeoutMs: 500, baseUrl: fake.url });
    expect(await wrong.authorize(charge()).catch((e: unknown) => e)).toMatchObject({ kind: 'rejected', status: 401 });
    // The call and Stripe's own words, for `processor test`; the key only as Stripe masks it.
    await expect(wrong.test()).rejects.toMatchObject({ kind: 'rejected', status: 401, request: `GET ${fake.url}/v1/balance`, message: 'Stripe refused the account\'s credentials (HTTP 401): Invalid API Key provided: sk_****' });
    const down = createStripeConnector({ secretKey: fake.key }, { timeoutMs: 500, baseUrl: 'http://127.0.0.1:9' });
    expect(await down.authorize(charge()).catch((e: unknown) => e)).toMatchObject({ kind: 'not_sent' });
  });

  it('a reset after the charge is sent once: stripe-node does not send it again, the outcome is unknown to rescued', async () => {
    // stripe-node 23 resends a call whose connection closed, whatever maxNetworkRetries says
    // (RequestSender._shouldRetry), before it settles the call: a rejection is the proof that
    // nothing was resent (with the resend, this call would resolve with the replayed charge).
    const req = charge();
    fake.script({ kind: 'reset_after_charge' });
    const err = await stripe.authorize(req).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'unknown', message: 'Stripe could not be reached (ECONNRESET)', request: `POST ${fake.url}/v1/payment_intents` });
    expect(fake.requests.filter((r) => r.headers['idempotency-key'] === req.idempotencyKey)).toHaveLength(1);
    expect([...fake.charges.values()].filter((c) => c.key === req.idempotencyKey)).toHaveLength(1);
  });

  it('a reset after the charge: the same key again returns the first answer, one charge; lookup finds it', async () => {
    const req = charge();
    fake.script({ kind: 'reset_after_charge' });
    expect(await stripe.authorize(req).catch((e: unknown) => e)).toMatchObject({ kind: 'unknown' });
    const again = await stripe.authorize(req);
    expect(again).toMatchObject({ approved: true });
    expect([...fake.charges.values()].filter((c) => c.key === req.idempotencyKey)).toHaveLength(1);
    expect(await stripe.lookup(req)).toMatchObject({ approved: true, processorRef: again.processorRef });
    expect(await stripe.lookup({ idempotencyKey: 'never-sent:1', reference: 'x' })).toBeNull();
  });

  it('refunds and cancels through the PaymentIntent, with their own keys', async () => {
    const { processorRef } = await stripe.authorize(charge());
    expect(await stripe.refund({ idempotencyKey: 'k:refund:1', reference: 'r', processorRef, amount: 500, currency: 'USD' })).toMatchObject({ approved: true, processorRef: expect.stringMatching(/^re_/) });
    expect(last()).toMatchObject({ path: '/v1/refunds', body: { payment_intent: processorRef, amount: '500' }, headers: { 'idempotency-key': 'k:refund:1' } });
    expect(await stripe.void({ idempotencyKey: 'k:void', reference: 'r', processorRef, currency: 'USD' })).toMatchObject({ approved: true });
    expect(fake.charges.has(processorRef)).toBe(false);
  });

  it('test() proves the key with a harmless read', async () => {
    expect(await stripe.test()).toMatch(/Stripe accepted the key \(test mode/);
  });
});
