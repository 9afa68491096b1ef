// The Adyen connector against a local fake written from Adyen's Checkout API reference,
// over TLS with a certificate made for the test: the exact fields sent for CIT,
// MIT-recurring and MIT-unscheduled, for vault cards and Adyen tokens; answers mapped
// (approval, refusals with raw and advice codes, 3-D Secure); each failure kind;
// reconciliation by replaying the key (and a look-up that never claims "no charge");
// refunds, cancels and the credentials test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayError, type ChargeRequest } from '../../../src/processors/connector.ts';
import { createAdyenConnector } from '../../../src/processors/adyen/index.ts';
import type { AdyenCredentials } from '../../../src/processors/adyen/credentials.ts';
import { startAdyenFake, type AdyenBehaviour, type AdyenFake } from '../../fakes/adyen/server.ts';
import { waitFor } from '../../helpers/wait.ts';
import { expectNoSecrets } from '../../helpers/secrets.ts';

const PAN = '4111111111111111';
const CVV = '737';
const ORDER = '0f8fad5b-d9cb-469f-a165-70867728950e';
const RETURN_URL = 'https://shop.example/checkout/return';
let n = 0;
const charge = (over: Partial<ChargeRequest> = {}): ChargeRequest => ({
  idempotencyKey: `${ORDER}:${++n}`, reference: ORDER, orderId: 'ORD-1',
  amount: 1999, currency: 'usd', card: { number: PAN, expMonth: 3, expYear: 2030, holderName: 'Jane Doe' },
  initiator: 'merchant', storedCredential: 'recurring', networkTransactionId: 'MCC123456789', ...over,
});
const token = { card: undefined, gatewayMethod: { paymentMethod: '8415718415172204', customer: 'shopper-42' } };
const tds = { version: '2.2.0', eci: '05', authenticationValue: 'AAABBEg0VhI0VniQEjRWAAAAAAA=', dsTransactionId: 'f25084f0-5b16-4c0a-ae5d-b24808a95e4b' };

/** A hold for the fake: the call it is given to stays unanswered until `answer()`. */
function held() {
  let answer!: () => void;
  const answered = new Promise<void>((resolve) => (answer = resolve));
  return { behaviour: { kind: 'hold' as const, released: () => answered }, answer };
}

describe('Adyen connector', () => {
  let fake: AdyenFake;
  let adyen: ReturnType<typeof createAdyenConnector>;
  let credentials: AdyenCredentials;
  // Generous by default: a first TLS handshake on a loaded 2-core machine takes a while. The
  // timeout cases make their own connector with a short timeout.
  const connect = (over: Partial<AdyenCredentials> = {}, timeoutMs = 5000, ca: string | undefined = fake.ca) =>
    createAdyenConnector({ ...credentials, ...over }, { timeoutMs, baseUrl: fake.url, ...(ca ? { ca } : {}) });
  beforeAll(async () => {
    fake = await startAdyenFake();
    credentials = { apiKey: fake.apiKey, merchantAccount: fake.merchantAccount, environment: 'test', returnUrl: RETURN_URL, rawCardData: true };
    adyen = connect();
  });
  afterAll(async () => fake?.close());
  const last = () => fake.requests.at(-1)!;
  const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as GatewayError);

  it('says what it is: idempotent, cards only with raw card data', () => {
    expect(adyen).toMatchObject({ type: 'adyen', idempotent: true, acceptsCards: true });
    expect(connect({ rawCardData: undefined }).acceptsCards).toBe(false);
  });

  it('MIT recurring with a vault card: ContAuth, Subscription, the card, networkTxReference, the key as Idempotency-Key and reference', async () => {
    const req = charge();
    const answer = await adyen.authorize(req);
    expect(answer).toEqual({ approved: true, responseCode: '00', processorRef: expect.stringMatching(/^FAKE/), rawCode: 'Authorised', networkTransactionId: expect.stringMatching(/^NTX/) });
    expect(last()).toMatchObject({ method: 'POST', path: '/payments', headers: { 'idempotency-key': req.idempotencyKey, 'x-api-key': fake.apiKey } });
    expect(last().body).toEqual({
      merchantAccount: fake.merchantAccount, reference: req.idempotencyKey, merchantOrderReference: ORDER,
      amount: { value: 1999, currency: 'USD' },
      paymentMethod: { type: 'scheme', number: PAN, expiryMonth: '03', expiryYear: '2030', holderName: 'Jane Doe' },
      shopperInteraction: 'ContAuth', recurringProcessingModel: 'Subscription',
      additionalData: { networkTxReference: 'MCC123456789' },
      metadata: { orderId: 'ORD-1' },
      returnUrl: RETURN_URL,
    });
  });

  it('MIT unscheduled with a vault card: UnscheduledCardOnFile; without a network transaction id no additionalData', async () => {
    const req = charge({ storedCredential: 'unscheduled', networkTransactionId: undefined, orderId: undefined });
    await adyen.authorize(req);
    expect(last().body).toEqual({
      merchantAccount: fake.merchantAccount, reference: req.idempotencyKey, merchantOrderReference: ORDER,
      amount: { value: 1999, currency: 'USD' },
      paymentMethod: { type: 'scheme', number: PAN, expiryMonth: '03', expiryYear: '2030', holderName: 'Jane Doe' },
      shopperInteraction: 'ContAuth', recurringProcessingModel: 'UnscheduledCardOnFile',
      returnUrl: RETURN_URL,
    });
  });

  it('MIT with an Adyen token: storedPaymentMethodId and shopperReference, no card data, no networkTxReference', async () => {
    const recurring = charge(token);
    await adyen.authorize(recurring);
    expect(last().body).toEqual({
      merchantAccount: fake.merchantAccount, reference: recurring.idempotencyKey, merchantOrderReference: ORDER,
      amount: { value: 1999, currency: 'USD' },
      paymentMethod: { type: 'scheme', storedPaymentMethodId: '8415718415172204' },
      shopperInteraction: 'ContAuth', recurringProcessingModel: 'Subscription', shopperReference: 'shopper-42',
      metadata: { orderId: 'ORD-1' }, returnUrl: RETURN_URL,
    });
    await adyen.authorize(charge({ ...token, storedCredential: 'unscheduled' }));
    expect(last().body).toMatchObject({ shopperInteraction: 'ContAuth', recurringProcessingModel: 'UnscheduledCardOnFile', shopperReference: 'shopper-42' });
  });

  it('CIT with a vault card: Ecommerce, CardOnFile, the challenge CVV, 3-D Secure results as mpiData', async () => {
    const req = charge({ initiator: 'customer', storedCredential: undefined, networkTransactionId: undefined, cvv: CVV, threeDSecure: tds });
    await adyen.authorize(req);
    expect(last().body).toEqual({
      merchantAccount: fake.merchantAccount, reference: req.idempotencyKey, merchantOrderReference: ORDER,
      amount: { value: 1999, currency: 'USD' },
      paymentMethod: { type: 'scheme', number: PAN, expiryMonth: '03', expiryYear: '2030', holderName: 'Jane Doe', cvc: CVV },
      shopperInteraction: 'Ecommerce', recurringProcessingModel: 'CardOnFile',
      mpiData: { threeDSVersion: '2.2.0', eci: '05', cavv: tds.authenticationValue, dsTransID: tds.dsTransactionId, directoryResponse: 'Y', authenticationResponse: 'Y' },
      metadata: { orderId: 'ORD-1' }, returnUrl: RETURN_URL,
    });
  });

  it('CIT with an Adyen token: CardOnFile with the shopperReference; no CVV or mpiData unless given', async () => {
    const req = charge({ ...token, initiator: 'customer', storedCredential: undefined });
    await adyen.authorize(req);
    expect(last().body).toEqual({
      merchantAccount: fake.merchantAccount, reference: req.idempotencyKey, merchantOrderReference: ORDER,
      amount: { value: 1999, currency: 'USD' },
      paymentMethod: { type: 'scheme', storedPaymentMethodId: '8415718415172204' },
      shopperInteraction: 'Ecommerce', recurringProcessingModel: 'CardOnFile', shopperReference: 'shopper-42',
      metadata: { orderId: 'ORD-1' }, returnUrl: RETURN_URL,
    });
    // An attempted authentication (Mastercard ECI 01) passes on as A; an ECI without authentication not at all.
    await adyen.authorize(charge({ initiator: 'customer', threeDSecure: { ...tds, eci: '01' } }));
    expect(last().body.mpiData).toMatchObject({ eci: '01', directoryResponse: 'A', authenticationResponse: 'A' });
    await adyen.authorize(charge({ initiator: 'customer', threeDSecure: { ...tds, eci: '07' } }));
    expect(last().body.mpiData).toBeUndefined();
  });

  it('an Adyen token without its shopperReference is refused before anything is sent', async () => {
    const before = fake.requests.length;
    expect(await failure(adyen.authorize(charge({ card: undefined, gatewayMethod: { paymentMethod: '8415718415172204' } })))).toMatchObject({ kind: 'rejected', code: 'shopper_reference_missing' });
    expect(fake.requests).toHaveLength(before);
  });

  it('maps refusals: the ISO code from refusalReasonRaw, the Mastercard advice code, the refusalReasonCode as raw code', async () => {
    fake.script({ kind: 'refuse', code: '12', reason: 'Not enough balance', raw: '51 : Insufficient funds', advice: '01: New account information available' });
    expect(await adyen.authorize(charge())).toEqual({ approved: false, responseCode: '51', adviceCode: '01', processorRef: expect.stringMatching(/^FAKE/), rawCode: '12', rawMessage: 'Not enough balance' });
    fake.script({ kind: 'refuse', code: '6', reason: 'Expired Card', raw: '54: Expired card' });
    expect(await adyen.authorize(charge())).toMatchObject({ approved: false, responseCode: '54', rawCode: '6' });
    // No raw code to take (text only, or none): the ISO code of the table's reason.
    fake.script({ kind: 'refuse', code: '27', reason: 'Declined Non Generic', raw: 'DECLINED Non-Generic' }, { kind: 'refuse', code: '12', reason: 'Not enough balance' }, { kind: 'refuse', code: '5', reason: 'Blocked Card', raw: '5: Do not honor' });
    expect(await adyen.authorize(charge())).toMatchObject({ responseCode: '05', rawCode: '27' });
    expect(await adyen.authorize(charge())).toMatchObject({ responseCode: '51', rawCode: '12' });
    expect(await adyen.authorize(charge())).toMatchObject({ responseCode: '05', rawCode: '5' });
  });

  it('maps Error and Cancelled as declines, never approvals', async () => {
    fake.script({ kind: 'result', resultCode: 'Error', code: '4', reason: 'Acquirer Error' }, { kind: 'result', resultCode: 'Error' }, { kind: 'result', resultCode: 'Cancelled' });
    expect(await adyen.authorize(charge())).toMatchObject({ approved: false, responseCode: '96', rawCode: '4', rawMessage: 'Acquirer Error' });
    expect(await adyen.authorize(charge())).toMatchObject({ approved: false, responseCode: '96', rawCode: 'Error' });
    expect(await adyen.authorize(charge())).toMatchObject({ approved: false, responseCode: '05', rawCode: 'Cancelled' });
  });

  it.each(['RedirectShopper', 'IdentifyShopper', 'ChallengeShopper'] as const)('maps %s to a 3-D Secure challenge', async (resultCode) => {
    fake.script({ kind: 'action', resultCode });
    expect(await adyen.authorize(charge({ initiator: 'customer' }))).toEqual({ approved: false, responseCode: '1A', challenge: '3ds', processorRef: expect.stringMatching(/^FAKE/), rawCode: '38', rawMessage: resultCode });
  });

  it('maps a refusal for authentication (38) to a 3-D Secure challenge too', async () => {
    fake.script({ kind: 'refuse', code: '38', reason: 'Authentication required' });
    expect(await adyen.authorize(charge({ initiator: 'customer' }))).toMatchObject({ approved: false, challenge: '3ds', responseCode: '1A', rawCode: '38' });
  });

  const noSecrets = (err: GatewayError | undefined) => {
    expect(err).toBeInstanceOf(GatewayError);
    const text = JSON.stringify({ m: err!.message, c: String(err!.cause), code: err!.code });
    expectNoSecrets(text, [PAN, CVV, fake.apiKey]);
  };

  it.each<[AdyenBehaviour, GatewayError['kind']]>([
    [{ kind: 'status', status: 429 }, 'rejected'],
    [{ kind: 'status', status: 422, errorCode: '14_030' }, 'rejected'],
    [{ kind: 'status', status: 500 }, 'unknown'],
    [{ kind: 'status', status: 503 }, 'unknown'],
    [{ kind: 'timeout' }, 'unknown'],
    [{ kind: 'reset' }, 'unknown'],
    [{ kind: 'malformed' }, 'unknown'],
    [{ kind: 'result', resultCode: 'Received' }, 'unknown'],
  ])('a %o is a GatewayError of kind %s, naming no card data', async (behaviour, kind) => {
    fake.script(behaviour);
    // A call that never answers waits out the timeout: a short one (still longer than a handshake under load).
    const conn = behaviour.kind === 'timeout' ? connect({}, 1000) : adyen;
    const err = await failure(conn.authorize(charge({ initiator: 'customer', cvv: CVV })));
    expect(err).toMatchObject({ kind });
    noSecrets(err);
  });

  it('bad credentials and a wrong merchant account are rejected; unreachable or untrusted is not_sent', async () => {
    for (const over of [{ apiKey: 'AQEwrongwrongwrongwrong' }, { merchantAccount: 'SomeoneElseECOM' }]) {
      const wrong = connect(over);
      const err = await failure(wrong.authorize(charge()));
      expect(err).toMatchObject({ kind: 'rejected', status: over.apiKey ? 401 : 403 });
      noSecrets(err);
      await expect(wrong.test()).rejects.toMatchObject({ kind: 'rejected' });
    }
    const down = createAdyenConnector(credentials, { timeoutMs: 500, baseUrl: 'https://127.0.0.1:9/v72', ca: fake.ca });
    expect(await failure(down.authorize(charge()))).toMatchObject({ kind: 'not_sent' });
    // Without the fake's CA the TLS handshake fails: the request never left.
    const before = fake.requests.length;
    const untrusted = await failure(connect({}, 500, '').authorize(charge()));
    expect(untrusted).toMatchObject({ kind: 'not_sent' });
    noSecrets(untrusted);
    expect(fake.requests).toHaveLength(before);
  });

  it('a live account without its endpoint prefix is refused without a call', async () => {
    const live = createAdyenConnector({ ...credentials, environment: 'live' }, { timeoutMs: 500 });
    await expect(live.authorize(charge())).rejects.toMatchObject({ kind: 'rejected', code: 'account_misconfigured' });
    await expect(live.test()).rejects.toMatchObject({ kind: 'rejected' });
  });

  it('a reset after the charge: the same key again returns the first answer, one charge; lookup never says "none"', async () => {
    const req = charge();
    fake.script({ kind: 'reset_after_charge' });
    expect(await failure(adyen.authorize(req))).toMatchObject({ kind: 'unknown' });
    const again = await adyen.authorize(req);
    expect(again).toMatchObject({ approved: true });
    const taken = [...fake.charges.entries()].filter(([, c]) => c.key === req.idempotencyKey);
    expect(taken).toHaveLength(1);
    expect(again.processorRef).toBe(taken[0]![0]);
    // Adyen cannot be asked what a key charged: the look-up is the replay above, never a null.
    for (const key of [req.idempotencyKey, `${ORDER}:never-sent`]) {
      await expect(adyen.lookup({ idempotencyKey: key, reference: ORDER })).rejects.toMatchObject({ kind: 'unknown', code: 'lookup_unsupported' });
    }
  });

  it('a replay while the first call is still running is unknown (704), and the first call charges once', async () => {
    const req = charge();
    const hold = held();
    fake.script(hold.behaviour);
    const seen = fake.requests.length;
    const first = adyen.authorize(req);
    await waitFor(() => fake.requests.length > seen, { what: 'the first call at the fake' });
    expect(await failure(adyen.authorize(req))).toMatchObject({ kind: 'unknown', status: 409, code: '704' });
    hold.answer();
    expect(await first).toMatchObject({ approved: true });
    expect([...fake.charges.values()].filter((c) => c.key === req.idempotencyKey)).toHaveLength(1);
  });

  it('an answer slower than timeoutMs is unknown; the charge it made comes back on the replay', async () => {
    const req = charge();
    const hold = held();
    fake.script(hold.behaviour);
    // The fake holds the answer for as long as the caller waits: a timeout longer than a handshake under load.
    expect(await failure(connect({}, 1000).authorize(req))).toMatchObject({ kind: 'unknown' });
    expect(fake.requests.at(-1)?.headers['idempotency-key']).toBe(req.idempotencyKey);
    // Answered only once the caller has given up: the charge is made after its timeout.
    hold.answer();
    await waitFor(() => [...fake.charges.values()].some((c) => c.key === req.idempotencyKey), { what: 'the charge at the fake' });
    expect(await adyen.authorize(req)).toMatchObject({ approved: true });
    expect([...fake.charges.values()].filter((c) => c.key === req.idempotencyKey)).toHaveLength(1);
  });

  it('refunds and cancels by pspReference, each with its own key', async () => {
    const { processorRef } = await adyen.authorize(charge());
    const refund = { idempotencyKey: `${ORDER}:refund:1`, reference: ORDER, processorRef, amount: 500, currency: 'USD' };
    expect(await adyen.refund(refund)).toMatchObject({ approved: true, responseCode: '00', rawCode: 'received', processorRef: expect.stringMatching(/^FAKE/) });
    expect(last()).toMatchObject({ path: `/payments/${processorRef}/refunds`, headers: { 'idempotency-key': refund.idempotencyKey } });
    expect(last().body).toEqual({ merchantAccount: fake.merchantAccount, amount: { value: 500, currency: 'USD' }, reference: refund.idempotencyKey });
    expect(fake.refunds.filter((r) => r.paymentPspReference === processorRef)).toHaveLength(1);
    const voided = await adyen.void({ idempotencyKey: `${ORDER}:void`, reference: ORDER, processorRef, currency: 'USD' });
    expect(voided).toMatchObject({ approved: true, rawCode: 'received' });
    expect(last()).toMatchObject({ path: `/payments/${processorRef}/cancels`, headers: { 'idempotency-key': `${ORDER}:void` }, body: { merchantAccount: fake.merchantAccount, reference: `${ORDER}:void` } });
    expect(fake.charges.has(processorRef)).toBe(false);
    await expect(adyen.refund({ ...refund, idempotencyKey: `${ORDER}:refund:2`, processorRef: 'NOSUCHPAYMENT000' })).rejects.toMatchObject({ kind: 'rejected', status: 422 });
  });

  it('test() proves the key and the merchant account with POST /paymentMethods', async () => {
    expect(await adyen.test()).toMatch(/^Adyen accepted the API key for merchant account RescuedTestECOM \(test; 1 payment methods offered, cards among them\)/);
    expect(last()).toMatchObject({ path: '/paymentMethods', body: { merchantAccount: fake.merchantAccount } });
  });

  it('a base URL with another API version: a 404 that names the call and says what Adyen said (for processor test)', async () => {
    const other = fake.url.replace(/\/v72$/, '/v71');
    const wrong = createAdyenConnector(credentials, { timeoutMs: 5000, baseUrl: other, ca: fake.ca });
    const err = await failure(wrong.test());
    expect(err).toMatchObject({ kind: 'rejected', status: 404, request: `POST ${other}/paymentMethods`, message: 'Adyen refused the request (HTTP 404, 000: No endpoint /v71/paymentMethods)' });
    noSecrets(err);
    // A network failure names the call too.
    const down = createAdyenConnector(credentials, { timeoutMs: 500, baseUrl: 'https://127.0.0.1:9/v72', ca: fake.ca });
    expect(await failure(down.test())).toMatchObject({ kind: 'not_sent', request: 'POST https://127.0.0.1:9/v72/paymentMethods' });
  });
});
