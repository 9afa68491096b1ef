// The Braintree connector, through the official SDK, against a local fake written from
// Braintree's reference and the SDK's wire format: the exact sale sent for CIT,
// MIT-recurring and MIT-unscheduled, for vault cards and Braintree Vault tokens; answers
// mapped (approval, declines with network codes and MACs, gateway rejections, 3-D Secure);
// each failure kind; look-up by order id after a reset; refunds, voids and the credentials test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBraintreeConnector } from '../../../src/processors/braintree/index.ts';
import { GatewayError, type ChargeRequest } from '../../../src/processors/connector.ts';
import { startBraintreeFake, type BraintreeBehaviour, type BraintreeFake } from '../../fakes/braintree/server.ts';

const PAN = '4111111111111111';
const NTI = '123456789012345';
let n = 0;
const charge = (over: Partial<ChargeRequest> = {}): ChargeRequest => ({
  idempotencyKey: `0f8fad5b-d9cb-469f-a165-70867728950e:${++n}`, reference: '0f8fad5b-d9cb-469f-a165-70867728950e', orderId: 'ORD-1',
  amount: 1999, currency: 'USD', card: { number: PAN, expMonth: 7, expYear: 2030, holderName: 'Jane Doe' },
  initiator: 'merchant', storedCredential: 'recurring', networkTransactionId: NTI, ...over,
});
const failure = (p: Promise<unknown>) => p.catch((e: unknown) => e);
const namesNoCard = (err: unknown) => expect(JSON.stringify({ m: (err as Error).message, c: String((err as Error).cause) })).not.toMatch(new RegExp(`${PAN}|737`));

describe('Braintree connector', () => {
  let fake: BraintreeFake;
  let bt: ReturnType<typeof createBraintreeConnector>;
  const connector = (over: object = {}, timeoutMs = 400) =>
    createBraintreeConnector({ ...fake.credentials, environment: 'sandbox', merchantAccountId: 'rescued_usd', rawCardData: true, ...over }, { timeoutMs, baseUrl: fake.url });
  beforeAll(async () => {
    fake = await startBraintreeFake({ accounts: { rescued_usd: 'USD', rescued_jpy: 'JPY' } });
    bt = connector();
  });
  afterAll(async () => fake?.close());
  const last = () => fake.requests.at(-1)!;

  it('MIT recurring with a vault card: transactionSource, externalVault with the first payment\'s id, the card, the key as orderId', async () => {
    const req = charge();
    const answer = await bt.authorize(req);
    expect(answer).toEqual({ approved: true, responseCode: '00', processorRef: expect.any(String), rawCode: '1000', rawMessage: 'Approved', networkTransactionId: `ntid${answer.processorRef}` });
    expect(last()).toMatchObject({ method: 'POST', path: '/transactions', headers: { 'x-apiversion': '6', accept: 'application/xml', authorization: expect.stringMatching(/^Basic /) } });
    expect(last().body).toEqual({
      transaction: {
        type: 'sale', amount: '19.99', order_id: req.idempotencyKey, merchant_account_id: 'rescued_usd',
        credit_card: { number: PAN, expiration_date: '07/2030', cardholder_name: 'Jane Doe' },
        transaction_source: 'recurring', external_vault: { status: 'vaulted', previous_network_transaction_id: NTI },
        options: { submit_for_settlement: true },
      },
    });
    expect(fake.charges.get(answer.processorRef)).toEqual({ amount: '19.99', orderId: req.idempotencyKey, merchantAccountId: 'rescued_usd' });
  });

  it('MIT unscheduled with a vault card and no known network id: vaulted, without previousNetworkTransactionId', async () => {
    const req = charge({ storedCredential: 'unscheduled', networkTransactionId: undefined, card: { number: PAN, expMonth: 12, expYear: 2031 } });
    await bt.authorize(req);
    expect(last().body).toEqual({
      transaction: {
        type: 'sale', amount: '19.99', order_id: req.idempotencyKey, merchant_account_id: 'rescued_usd',
        credit_card: { number: PAN, expiration_date: '12/2031' }, transaction_source: 'unscheduled', external_vault: { status: 'vaulted' },
        options: { submit_for_settlement: true },
      },
    });
  });

  it('MIT unscheduled with a Braintree Vault token: the token alone, no card, no externalVault', async () => {
    const req = charge({ card: undefined, gatewayMethod: { paymentMethod: 'tok_8x2k', customer: 'cust_9' }, storedCredential: 'unscheduled' });
    await bt.authorize(req);
    expect(last().body).toEqual({
      transaction: { type: 'sale', amount: '19.99', order_id: req.idempotencyKey, merchant_account_id: 'rescued_usd', payment_method_token: 'tok_8x2k', transaction_source: 'unscheduled', options: { submit_for_settlement: true } },
    });
  });

  it('CIT: no transactionSource, no externalVault; the challenge CVV once; 3-D Secure results passed through', async () => {
    const req = charge({ initiator: 'customer', storedCredential: undefined, cvv: '737', threeDSecure: { version: '2.2.0', eci: '05', authenticationValue: 'AAABBEg0VhI0VniQEjRWAAAAAAA=', dsTransactionId: 'f25084f0-5b16-4c0a-ae5d-b24808a95e4b' } });
    await bt.authorize(req);
    expect(last().body).toEqual({
      transaction: {
        type: 'sale', amount: '19.99', order_id: req.idempotencyKey, merchant_account_id: 'rescued_usd',
        credit_card: { number: PAN, expiration_date: '07/2030', cardholder_name: 'Jane Doe', cvv: '737' },
        three_d_secure_pass_thru: { eci_flag: '05', cavv: 'AAABBEg0VhI0VniQEjRWAAAAAAA=', three_d_secure_version: '2.2.0', ds_transaction_id: 'f25084f0-5b16-4c0a-ae5d-b24808a95e4b' },
        options: { submit_for_settlement: true },
      },
    });
    await bt.authorize(charge({ initiator: 'customer', storedCredential: undefined, card: undefined, gatewayMethod: { paymentMethod: 'tok_8x2k' } }));
    expect(last().body.transaction).toEqual({ type: 'sale', amount: '19.99', order_id: expect.any(String), merchant_account_id: 'rescued_usd', payment_method_token: 'tok_8x2k', options: { submit_for_settlement: true } });
  });

  it('picks the merchant account of the currency, in its currency\'s format; refuses a currency it has none for, unsent', async () => {
    const multi = connector({ merchantAccountId: undefined, merchantAccounts: { USD: 'rescued_usd', JPY: 'rescued_jpy' } });
    expect(await multi.authorize(charge({ amount: 1500, currency: 'JPY' }))).toMatchObject({ approved: true });
    expect(last().body.transaction).toMatchObject({ amount: '1500', merchant_account_id: 'rescued_jpy' });
    const sent = fake.requests.length;
    expect(await failure(multi.authorize(charge({ currency: 'EUR' })))).toMatchObject({ kind: 'rejected', code: 'currency_not_configured' });
    expect(fake.requests).toHaveLength(sent);
  });

  it('maps processor declines: the network\'s code and the MAC when passed on, else the ISO code of Braintree\'s code', async () => {
    fake.script({ kind: 'decline', code: '2001', networkResponseCode: '51', merchantAdviceCode: '24' });
    expect(await bt.authorize(charge())).toEqual({ approved: false, responseCode: '51', adviceCode: '24', processorRef: expect.any(String), rawCode: '2001', rawMessage: 'Insufficient Funds / 2001 : Insufficient Funds' });
    fake.script({ kind: 'decline', code: '2004' }, { kind: 'decline', code: '3000' }, { kind: 'decline', code: '2046', networkResponseCode: 'XX' });
    expect(await bt.authorize(charge())).toMatchObject({ approved: false, responseCode: '54', rawCode: '2004' });
    expect(await bt.authorize(charge())).toMatchObject({ approved: false, responseCode: '91', rawCode: '3000' });
    expect(await bt.authorize(charge())).toMatchObject({ approved: false, responseCode: '05', rawCode: '2046' });
  });

  it('maps authentication and CVV refusals to challenges: 2099 and the three_d_secure rejection to 3-D Secure, 2010 to CVV', async () => {
    fake.script({ kind: 'decline', code: '2099' }, { kind: 'gateway_rejected', reason: 'three_d_secure' }, { kind: 'decline', code: '2010' });
    const cit = () => bt.authorize(charge({ initiator: 'customer', storedCredential: undefined }));
    expect(await cit()).toMatchObject({ approved: false, challenge: '3ds', responseCode: '1A', rawCode: '2099' });
    expect(await cit()).toMatchObject({ approved: false, challenge: '3ds', responseCode: '1A', rawCode: 'three_d_secure' });
    expect(await cit()).toMatchObject({ approved: false, challenge: 'cvv', responseCode: 'N7', rawCode: '2010' });
  });

  it('maps gateway rejections to declines with the reason as raw code, even after an approved authorization (AVS/CVV rules)', async () => {
    const before = fake.charges.size;
    fake.script({ kind: 'gateway_rejected', reason: 'cvv' }, { kind: 'gateway_rejected', reason: 'avs' }, { kind: 'gateway_rejected', reason: 'fraud' }, { kind: 'gateway_rejected', reason: 'application_incomplete' });
    expect(await bt.authorize(charge())).toMatchObject({ approved: false, rawCode: 'cvv', responseCode: 'N7', challenge: 'cvv', rawMessage: 'gateway rejected: cvv' });
    expect(await bt.authorize(charge())).toEqual({ approved: false, rawCode: 'avs', responseCode: '05', processorRef: expect.any(String), rawMessage: 'gateway rejected: avs' });
    expect(await bt.authorize(charge())).toMatchObject({ approved: false, rawCode: 'fraud', responseCode: '05' });
    expect(await bt.authorize(charge())).toMatchObject({ approved: false, rawCode: 'application_incomplete', responseCode: '05' });
    expect(fake.charges.size).toBe(before);
  });

  it('the same attempt sent again is rejected by Braintree as a duplicate: unknown, and lookup finds the one sale', async () => {
    const req = charge();
    const first = await bt.authorize(req);
    expect(await failure(bt.authorize(req))).toMatchObject({ kind: 'unknown', code: 'duplicate' });
    expect([...fake.charges.values()].filter((c) => c.orderId === req.idempotencyKey)).toHaveLength(1);
    expect(await bt.lookup(req)).toMatchObject({ approved: true, processorRef: first.processorRef });
  });

  it.each<[BraintreeBehaviour, string]>([
    [{ kind: 'validation', code: '81715', attribute: 'number' }, 'rejected'],
    [{ kind: 'status', status: 429 }, 'rejected'],
    [{ kind: 'status', status: 403 }, 'rejected'],
    [{ kind: 'status', status: 500 }, 'unknown'],
    [{ kind: 'status', status: 502 }, 'unknown'],
    [{ kind: 'status', status: 503 }, 'unknown'],
    [{ kind: 'timeout' }, 'unknown'],
    [{ kind: 'delay', ms: 600 }, 'unknown'],
    [{ kind: 'reset' }, 'unknown'],
    [{ kind: 'malformed' }, 'unknown'],
  ])('a %o is a GatewayError of kind %s, naming no card data', async (behaviour, kind) => {
    fake.script(behaviour);
    const err = await failure(bt.authorize(charge({ initiator: 'customer', storedCredential: undefined, cvv: '737' })));
    expect(err).toBeInstanceOf(GatewayError);
    expect(err).toMatchObject({ kind });
    namesNoCard(err);
  });

  it('bad keys and another merchant\'s ID are rejected; an unreachable gateway and a refused certificate are not_sent', async () => {
    const wrong = connector({ privateKey: 'wrongwrongwrong0' });
    const refused = await failure(wrong.authorize(charge({ initiator: 'customer', storedCredential: undefined, cvv: '737' })));
    expect(refused).toMatchObject({ kind: 'rejected', status: 401 });
    namesNoCard(refused);
    await expect(wrong.test()).rejects.toMatchObject({ kind: 'rejected', status: 401 });
    expect(await failure(connector({ merchantId: 'someoneelse' }).authorize(charge()))).toMatchObject({ kind: 'rejected', status: 403 });
    const down = createBraintreeConnector({ ...fake.credentials, environment: 'sandbox' }, { timeoutMs: 400, baseUrl: 'http://127.0.0.1:9' });
    const err = await failure(down.authorize(charge()));
    expect(err).toMatchObject({ kind: 'not_sent' });
    namesNoCard(err);
  });

  it('over TLS, trusts the CA it is given and refuses the certificate otherwise, before sending anything', async () => {
    const tls = await startBraintreeFake({ tls: true });
    try {
      const opts = { ...tls.credentials, environment: 'sandbox' as const, rawCardData: true };
      expect(await createBraintreeConnector(opts, { timeoutMs: 2000, baseUrl: tls.url, ca: tls.ca! }).authorize(charge())).toMatchObject({ approved: true });
      expect(await failure(createBraintreeConnector(opts, { timeoutMs: 2000, baseUrl: tls.url }).authorize(charge()))).toMatchObject({ kind: 'not_sent', code: 'tls_certificate' });
      expect(tls.requests).toHaveLength(1);
    } finally {
      await tls.close();
    }
  });

  it('a reset after the charge is unknown; lookup by order id finds the one charge; a key never sent is null', async () => {
    const req = charge();
    fake.script({ kind: 'reset_after_charge' });
    expect(await failure(bt.authorize(req))).toMatchObject({ kind: 'unknown' });
    const made = [...fake.charges.entries()].filter(([, c]) => c.orderId === req.idempotencyKey);
    expect(made).toHaveLength(1);
    expect(await bt.lookup(req)).toMatchObject({ approved: true, responseCode: '00', processorRef: made[0]![0], networkTransactionId: `ntid${made[0]![0]}` });
    expect(last()).toMatchObject({ method: 'GET', path: `/transactions/${made[0]![0]}` });
    expect(fake.requests.at(-2)).toMatchObject({ method: 'POST', path: '/transactions/advanced_search_ids', body: { search: { order_id: { is: req.idempotencyKey } } } });
    expect(await bt.lookup({ idempotencyKey: 'never-sent:1', reference: 'x' })).toBeNull();
    const declined = charge();
    fake.script({ kind: 'decline', code: '2001' });
    await bt.authorize(declined);
    expect(await bt.lookup(declined)).toMatchObject({ approved: false, rawCode: '2001', responseCode: '51' });
  });

  it('voids (twice is still one void), refunds a settled sale with the refund key as orderId, and voids an unsettled one given back whole', async () => {
    const a = await bt.authorize(charge());
    expect(await bt.void({ idempotencyKey: 'k:void', reference: 'r', processorRef: a.processorRef, currency: 'USD' })).toMatchObject({ approved: true, processorRef: a.processorRef, rawCode: 'voided' });
    expect(last()).toMatchObject({ method: 'PUT', path: `/transactions/${a.processorRef}/void` });
    expect(fake.charges.has(a.processorRef)).toBe(false);
    expect(await bt.void({ idempotencyKey: 'k:void', reference: 'r', processorRef: a.processorRef, currency: 'USD' })).toMatchObject({ approved: true });

    const b = await bt.authorize(charge());
    fake.settle(b.processorRef);
    const refunded = await bt.refund({ idempotencyKey: 'k:refund:1', reference: 'r', processorRef: b.processorRef, amount: 500, currency: 'USD' });
    expect(refunded).toMatchObject({ approved: true, responseCode: '00' });
    expect(last()).toMatchObject({ method: 'POST', path: `/transactions/${b.processorRef}/refund`, body: { transaction: { amount: '5.00', order_id: 'k:refund:1' } } });
    expect(fake.refunds).toContainEqual({ id: refunded.processorRef, saleId: b.processorRef, amount: '5.00', orderId: 'k:refund:1' });

    const c = await bt.authorize(charge());
    expect(await failure(bt.refund({ idempotencyKey: 'k:refund:2', reference: 'r', processorRef: c.processorRef, amount: 500, currency: 'USD' }))).toMatchObject({ kind: 'rejected', code: '91506' });
    expect(await bt.refund({ idempotencyKey: 'k:refund:3', reference: 'r', processorRef: c.processorRef, amount: 1999, currency: 'USD' })).toMatchObject({ approved: true, processorRef: c.processorRef, rawCode: 'voided' });
    expect(fake.charges.has(c.processorRef)).toBe(false);
  });

  it('test() proves the keys, the transaction search and each merchant account\'s currency', async () => {
    expect(await bt.test()).toBe('Braintree accepted the API keys (sandbox; transaction search allowed; merchant account rescued_usd USD)');
    await expect(connector({ merchantAccounts: { EUR: 'rescued_usd' } }).test()).rejects.toMatchObject({ kind: 'rejected', code: 'currency_mismatch' });
  });
});
