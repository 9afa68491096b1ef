// The gateways' account updaters, read by the connectors against the local fakes: Adyen's Real
// Time Account Updater in the payment answer's additionalData (each status: a new expiry, a
// replacement card, a closed account, "contact the cardholder"), and Stripe's automatic card
// updates seen on the saved PaymentMethod after a decline (a new expiry, a replacement card;
// nothing when the card did not change, nothing for a raw vault card). Whatever a gateway
// sends, an answer never holds a card number (at most the last four), and the connectors
// write nothing to the process's output.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { findCardNumbers } from '../../../src/card-numbers.ts';
import { createAdyenConnector } from '../../../src/processors/adyen/index.ts';
import { cardUpdate } from '../../../src/processors/card-update.ts';
import type { ChargeRequest, Connector, GatewayAnswer } from '../../../src/processors/connector.ts';
import { createStripeConnector } from '../../../src/processors/stripe/index.ts';
import { startAdyenFake, type AdyenFake } from '../../fakes/adyen/server.ts';
import { startStripeFake, type StripeFake } from '../../fakes/stripe/server.ts';

const ORDER = '5d2c3a1e-8f0b-4a7e-9c61-2b7d4e0f9a13';
// Test cards: the old one, and the replacement an updater reports.
const OLD_PAN = '4111111111111111';
const NEW_PAN = '4000056655665556';
let n = 0;
const charge = (over: Partial<ChargeRequest> = {}): ChargeRequest => ({
  idempotencyKey: `${ORDER}:${++n}`, reference: ORDER, amount: 2500, currency: 'usd',
  card: { number: OLD_PAN, expMonth: 1, expYear: 2026 }, initiator: 'merchant', storedCredential: 'recurring', ...over,
});

/** No card number anywhere in what the connector returned. */
function expectNoCardNumber(answer: GatewayAnswer): void {
  expect(findCardNumbers(JSON.stringify(answer))).toEqual([]);
}

/** Everything written to stdout / stderr while `body` runs. */
async function output(body: () => Promise<unknown>): Promise<string> {
  let written = '';
  const capture = (chunk: unknown) => ((written += String(chunk)), true);
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  try {
    await body();
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
  return written;
}

describe('card updates: the pure checks', () => {
  it('keeps fields only when they are what they claim to be; a card number never passes', () => {
    expect(cardUpdate({ kind: 'expiry', expMonth: '3', expYear: '2030', last4: '1111' })).toEqual({ kind: 'expiry', expMonth: 3, expYear: 2030, last4: '1111' });
    expect(cardUpdate({ kind: 'expiry', expMonth: 3, expYear: '30' })).toEqual({ kind: 'expiry', expMonth: 3, expYear: 2030 });
    expect(cardUpdate({ kind: 'replacement', expMonth: 13, expYear: 2030, last4: NEW_PAN, gatewayReference: NEW_PAN })).toEqual({ kind: 'replacement' });
    expect(cardUpdate({ kind: 'replacement', expMonth: 4, expYear: null, gatewayReference: `tok ${NEW_PAN.slice(0, 4)} ${NEW_PAN.slice(4)}` })).toEqual({ kind: 'replacement' });
    expect(cardUpdate({ kind: 'closed', gatewayReference: 'pm_1PXc' })).toEqual({ kind: 'closed', gatewayReference: 'pm_1PXc' });
  });
});

describe('Adyen: Real Time Account Updater', () => {
  let fake: AdyenFake;
  let adyen: Connector;
  beforeAll(async () => {
    fake = await startAdyenFake();
    adyen = createAdyenConnector({ apiKey: fake.apiKey, merchantAccount: fake.merchantAccount, environment: 'test', returnUrl: 'https://shop.example/return', rawCardData: true }, { timeoutMs: 5000, baseUrl: fake.url, ca: fake.ca });
  });
  afterAll(async () => fake?.close());

  it('a new expiry: the payment retried inside the call and authorised, the expiry and last four reported', async () => {
    const pan = '5555555555554444';
    fake.updateCard(pan, { status: 'CardExpiryChanged', expiryDate: '3/2030', cardSummary: '4444' });
    const answer = await adyen.authorize(charge({ card: { number: pan, expMonth: 1, expYear: 2026 } }));
    expect(answer).toMatchObject({ approved: true, responseCode: '00', cardUpdate: { kind: 'expiry', expMonth: 3, expYear: 2030, last4: '4444' } });
    expect(fake.charges.get(answer.processorRef)).toMatchObject({ amount: 2500 });
    expectNoCardNumber(answer);
  });

  it('a replacement card on an Adyen token: authorised, the token (updated in place) named as the reference', async () => {
    fake.updateCard('8415718415172204', { status: 'CardChanged', expiryDate: '11/2031', cardSummary: '5556' });
    const answer = await adyen.authorize(charge({ card: undefined, gatewayMethod: { paymentMethod: '8415718415172204', customer: 'shopper-7' } }));
    expect(answer).toMatchObject({ approved: true, cardUpdate: { kind: 'replacement', expMonth: 11, expYear: 2031, last4: '5556', gatewayReference: '8415718415172204' } });
    expectNoCardNumber(answer);
  });

  it.each(['CloseAccount', 'ContactCardAccountHolder'] as const)('%s: refused, the card reported closed, no expiry or last four', async (status) => {
    const pan = status === 'CloseAccount' ? '4917610000000000' : '4400000000000008';
    fake.updateCard(pan, { status, expiryDate: '3/2030', cardSummary: '0000' });
    const answer = await adyen.authorize(charge({ card: { number: pan, expMonth: 1, expYear: 2026 } }));
    expect(answer).toMatchObject({ approved: false, cardUpdate: { kind: 'closed' } });
    expect(answer.cardUpdate).toEqual({ kind: 'closed' });
    expect(fake.charges.get(answer.processorRef)).toBeUndefined();
  });

  it('a refusal after the update (the updated card refused too) still reports the update', async () => {
    const pan = '4035501000000008';
    fake.updateCard(pan, { status: 'CardChanged', expiryDate: '6/2029', cardSummary: '9999' });
    fake.script({ kind: 'refuse', code: '12', reason: 'Not enough balance', raw: '51 : Insufficient funds' });
    const answer = await adyen.authorize(charge({ card: { number: pan, expMonth: 1, expYear: 2026 } }));
    expect(answer).toMatchObject({ approved: false, responseCode: '51', cardUpdate: { kind: 'replacement', expMonth: 6, expYear: 2029, last4: '9999' } });
  });

  it('no update where Adyen would not ask (a CVC sent) and none without a status', async () => {
    const pan = '4988438843884305';
    fake.updateCard(pan, { status: 'CardExpiryChanged', expiryDate: '3/2030' });
    const withCvc = await adyen.authorize(charge({ card: { number: pan, expMonth: 1, expYear: 2026 }, cvv: '737' }));
    expect(withCvc.cardUpdate).toBeUndefined();
    expect((await adyen.authorize(charge())).cardUpdate).toBeUndefined();
  });

  it('a gateway that sends a full card number where the last four belong: never returned, nothing written', async () => {
    const pan = '4166676667666746';
    fake.updateCard(pan, { status: 'CardChanged', expiryDate: '3/2030', cardSummary: NEW_PAN });
    let answer!: GatewayAnswer;
    const written = await output(async () => (answer = await adyen.authorize(charge({ card: { number: pan, expMonth: 1, expYear: 2026 } }))));
    expect(answer.cardUpdate).toEqual({ kind: 'replacement', expMonth: 3, expYear: 2030 });
    expectNoCardNumber(answer);
    expect(written).toBe('');
  });
});

describe('Stripe: automatic card updates on a saved PaymentMethod', () => {
  let fake: StripeFake;
  let stripe: Connector;
  beforeAll(async () => {
    fake = await startStripeFake();
    stripe = createStripeConnector({ secretKey: fake.key, rawCardData: true }, { timeoutMs: 2000, baseUrl: fake.url });
  });
  afterAll(async () => fake?.close());
  afterEach(() => fake.requests.splice(0));
  const saved = (pm: string): Partial<ChargeRequest> => ({ card: undefined, gatewayMethod: { paymentMethod: pm, customer: 'cus_7' } });

  it('expired_card, then the PaymentMethod renewed in place: an expiry update, read from the charge and the PaymentMethod', async () => {
    fake.addPaymentMethod('pm_exp', { exp_month: 1, exp_year: 2026, last4: '4242' });
    fake.script({ kind: 'decline', declineCode: 'expired_card', networkDeclineCode: '54', updateCard: { exp_month: 1, exp_year: 2030 } });
    const answer = await stripe.authorize(charge(saved('pm_exp')));
    expect(answer).toMatchObject({ approved: false, responseCode: '54', rawCode: 'expired_card', cardUpdate: { kind: 'expiry', expMonth: 1, expYear: 2030, last4: '4242', gatewayReference: 'pm_exp' } });
    const calls = fake.requests.map((r) => `${r.method} ${r.path}`);
    expect(calls).toHaveLength(3);
    expect(calls).toEqual(expect.arrayContaining(['POST /v1/payment_intents', 'GET /v1/payment_methods/pm_exp', expect.stringMatching(/^GET \/v1\/charges\/ch_/)]));
    expectNoCardNumber(answer);
  });

  it('lost_card, then a new card number on the PaymentMethod (another fingerprint and last four): a replacement', async () => {
    fake.addPaymentMethod('pm_lost', { last4: '1111', fingerprint: 'fpOld' });
    fake.script({ kind: 'decline', declineCode: 'lost_card', networkDeclineCode: '41', updateCard: { last4: '5556', fingerprint: 'fpNew', exp_month: 8, exp_year: 2031 } });
    const answer = await stripe.authorize(charge(saved('pm_lost')));
    expect(answer.cardUpdate).toEqual({ kind: 'replacement', expMonth: 8, expYear: 2031, last4: '5556', gatewayReference: 'pm_lost' });
  });

  it('MAC 01 (new account information) on another decline code is looked at too', async () => {
    fake.addPaymentMethod('pm_mac', { last4: '0005', fingerprint: 'fpA' });
    fake.script({ kind: 'decline', declineCode: 'do_not_honor', networkDeclineCode: '05', networkAdviceCode: '01', updateCard: { fingerprint: 'fpB', last4: '0013' } });
    expect((await stripe.authorize(charge(saved('pm_mac')))).cardUpdate).toMatchObject({ kind: 'replacement', last4: '0013' });
  });

  it('no update: the card unchanged, a decline that says nothing about the card, or a raw vault card', async () => {
    fake.addPaymentMethod('pm_same');
    fake.script({ kind: 'decline', declineCode: 'expired_card' });
    expect((await stripe.authorize(charge(saved('pm_same')))).cardUpdate).toBeUndefined();
    fake.script({ kind: 'decline', declineCode: 'insufficient_funds', updateCard: { exp_year: 2035 } });
    const funds = await stripe.authorize(charge(saved('pm_same')));
    expect(funds.cardUpdate).toBeUndefined();
    expect(fake.requests.filter((r) => r.method === 'GET')).toHaveLength(2);
    fake.script({ kind: 'decline', declineCode: 'expired_card' });
    const raw = await stripe.authorize(charge());
    expect(raw).toMatchObject({ approved: false, rawCode: 'expired_card' });
    expect(raw.cardUpdate).toBeUndefined();
  });

  it('the reads failing leave the decline as it was', async () => {
    fake.addPaymentMethod('pm_fail', { exp_year: 2026 });
    fake.script({ kind: 'decline', declineCode: 'expired_card', networkDeclineCode: '54', updateCard: { exp_year: 2030 } });
    fake.failReads(2);
    const answer = await stripe.authorize(charge(saved('pm_fail')));
    expect(answer).toMatchObject({ approved: false, responseCode: '54', rawCode: 'expired_card' });
    expect(answer.cardUpdate).toBeUndefined();
  });

  it('never a card number in the answer, nothing written, even when the gateway puts one in the last four', async () => {
    fake.addPaymentMethod('pm_leak', { last4: '1111', fingerprint: 'fp1' });
    fake.script({ kind: 'decline', declineCode: 'stolen_card', updateCard: { last4: NEW_PAN, fingerprint: 'fp2' } });
    let answer!: GatewayAnswer;
    const written = await output(async () => (answer = await stripe.authorize(charge(saved('pm_leak')))));
    expect(answer.cardUpdate).toEqual({ kind: 'replacement', expMonth: 12, expYear: 2030, gatewayReference: 'pm_leak' });
    expectNoCardNumber(answer);
    expect(written).toBe('');
  });
});
