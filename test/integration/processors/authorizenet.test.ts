// The Authorize.Net connector against a local fake written from Authorize.Net's API reference
// and schema: the exact requests (fields and their schema order) for CIT, MIT-recurring and
// MIT-unscheduled, for vault cards and customer profiles; answers mapped (approval with the
// network transaction id, declines by reason code, holds, 3-D Secure); each failure kind;
// the look-up after a reset that charged (unsettled and settled); refunds, voids, the
// credentials test.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthorizeNetConnector } from '../../../src/processors/authorizenet/index.ts';
import { gatewayIdFor } from '../../../src/processors/authorizenet/request.ts';
import { GatewayError, type ChargeRequest } from '../../../src/processors/connector.ts';
import { startAuthorizeNetFake, type AuthorizeNetFake } from '../../fakes/authorizenet/server.ts';
import { expectNoSecrets } from '../../helpers/secrets.ts';

const PAN = '4007000000027';
const CVV = '902';
let n = 0;
const charge = (over: Partial<ChargeRequest> = {}): ChargeRequest => ({
  idempotencyKey: `0f8fad5b-d9cb-469f-a165-70867728950e:${++n}`, reference: '0f8fad5b-d9cb-469f-a165-70867728950e', orderId: 'ORD-1',
  amount: 1999, currency: 'USD', card: { number: PAN, expMonth: 3, expYear: 2030, holderName: 'Jane Doe' },
  initiator: 'merchant', storedCredential: 'recurring', networkTransactionId: '123456789012345', ...over,
});
const DUPLICATE_WINDOW = { settingName: 'duplicateWindow', settingValue: '28800' };

describe('Authorize.Net connector', () => {
  let fake: AuthorizeNetFake;
  let anet: ReturnType<typeof createAuthorizeNetConnector>;
  let auth: { name: string; transactionKey: string };
  beforeAll(async () => {
    fake = await startAuthorizeNetFake();
    auth = { name: fake.apiLoginId, transactionKey: fake.transactionKey };
    anet = createAuthorizeNetConnector({ apiLoginId: fake.apiLoginId, transactionKey: fake.transactionKey, environment: 'sandbox' }, { timeoutMs: 400, baseUrl: fake.url });
  });
  afterAll(async () => fake?.close());
  const last = () => fake.requests.at(-1)!;
  const chargesOf = (req: ChargeRequest) => [...fake.charges.values()].filter((c) => c.invoiceNumber === gatewayIdFor(req.idempotencyKey));

  it('MIT recurring with a vault card: the card, isSubsequentAuth, recurringBilling, the first network transaction id, in schema order', async () => {
    const req = charge();
    const id = gatewayIdFor(req.idempotencyKey);
    expect(id).toMatch(/^[0-9A-Z]{20}$/);
    const answer = await anet.authorize(req);
    expect(answer).toMatchObject({ approved: true, responseCode: '00', rawCode: '1', processorRef: expect.stringMatching(/^\d+$/), networkTransactionId: expect.stringMatching(/^ntid/) });
    expect(last().path).toBe('/xml/v1/request.api');
    expect(JSON.stringify(last().body)).toBe(JSON.stringify({
      createTransactionRequest: {
        merchantAuthentication: auth,
        refId: id,
        transactionRequest: {
          transactionType: 'authCaptureTransaction', amount: '19.99', currencyCode: 'USD',
          payment: { creditCard: { cardNumber: PAN, expirationDate: '2030-03' } },
          order: { invoiceNumber: id, description: `rescued ${req.idempotencyKey} order ORD-1` },
          transactionSettings: { setting: [DUPLICATE_WINDOW, { settingName: 'recurringBilling', settingValue: 'true' }] },
          processingOptions: { isSubsequentAuth: true },
          subsequentAuthInformation: { originalNetworkTransId: '123456789012345' },
        },
      },
    }));
    expect(chargesOf(req)).toHaveLength(1);
  });

  it('MIT unscheduled with a customer profile: profile ids, no card, no recurringBilling', async () => {
    const req = charge({ card: undefined, gatewayMethod: { paymentMethod: '505', customer: '404' }, storedCredential: 'unscheduled', networkTransactionId: undefined, orderId: undefined, amount: 500 });
    const id = gatewayIdFor(req.idempotencyKey);
    expect(await anet.authorize(req)).toMatchObject({ approved: true });
    expect(JSON.stringify(last().body)).toBe(JSON.stringify({
      createTransactionRequest: {
        merchantAuthentication: auth,
        refId: id,
        transactionRequest: {
          transactionType: 'authCaptureTransaction', amount: '5.00', currencyCode: 'USD',
          profile: { customerProfileId: '404', paymentProfile: { paymentProfileId: '505' } },
          order: { invoiceNumber: id, description: `rescued ${req.idempotencyKey}` },
          transactionSettings: { setting: [DUPLICATE_WINDOW] },
          processingOptions: { isSubsequentAuth: true },
        },
      },
    }));
  });

  it('MIT unscheduled with a vault card and MIT recurring with a customer profile: the same flags, the other payment method', async () => {
    const unscheduled = charge({ storedCredential: 'unscheduled' });
    await anet.authorize(unscheduled);
    const tr = (body: Record<string, unknown>) => JSON.stringify((body.createTransactionRequest as { transactionRequest: unknown }).transactionRequest);
    expect(tr(last().body)).toBe(JSON.stringify({
      transactionType: 'authCaptureTransaction', amount: '19.99', currencyCode: 'USD',
      payment: { creditCard: { cardNumber: PAN, expirationDate: '2030-03' } },
      order: { invoiceNumber: gatewayIdFor(unscheduled.idempotencyKey), description: `rescued ${unscheduled.idempotencyKey} order ORD-1` },
      transactionSettings: { setting: [DUPLICATE_WINDOW] },
      processingOptions: { isSubsequentAuth: true },
      subsequentAuthInformation: { originalNetworkTransId: '123456789012345' },
    }));
    const recurring = charge({ card: undefined, gatewayMethod: { paymentMethod: '505', customer: '404' } });
    await anet.authorize(recurring);
    expect(tr(last().body)).toBe(JSON.stringify({
      transactionType: 'authCaptureTransaction', amount: '19.99', currencyCode: 'USD',
      profile: { customerProfileId: '404', paymentProfile: { paymentProfileId: '505' } },
      order: { invoiceNumber: gatewayIdFor(recurring.idempotencyKey), description: `rescued ${recurring.idempotencyKey} order ORD-1` },
      transactionSettings: { setting: [DUPLICATE_WINDOW, { settingName: 'recurringBilling', settingValue: 'true' }] },
      processingOptions: { isSubsequentAuth: true },
      subsequentAuthInformation: { originalNetworkTransId: '123456789012345' },
    }));
  });

  it('CIT with a vault card: the challenge CVV as cardCode, 3-D Secure results as cardholderAuthentication, no stored-credential flag', async () => {
    const req = charge({ initiator: 'customer', storedCredential: undefined, networkTransactionId: undefined, cvv: CVV, threeDSecure: { version: '2.2.0', eci: '05', authenticationValue: 'AAABBEg0VhI0VniQEjRWAAAAAAA=', dsTransactionId: 'f25084f0-5b16-4c0a-ae5d-b24808a95e4b' } });
    const id = gatewayIdFor(req.idempotencyKey);
    await anet.authorize(req);
    expect(JSON.stringify(last().body)).toBe(JSON.stringify({
      createTransactionRequest: {
        merchantAuthentication: auth,
        refId: id,
        transactionRequest: {
          transactionType: 'authCaptureTransaction', amount: '19.99', currencyCode: 'USD',
          payment: { creditCard: { cardNumber: PAN, expirationDate: '2030-03', cardCode: CVV } },
          order: { invoiceNumber: id, description: `rescued ${req.idempotencyKey} order ORD-1` },
          cardholderAuthentication: { authenticationIndicator: '05', cardholderAuthenticationValue: 'AAABBEg0VhI0VniQEjRWAAAAAAA=' },
          transactionSettings: { setting: [DUPLICATE_WINDOW] },
        },
      },
    }));
  });

  it('CIT with a customer profile: the CVV in paymentProfile.cardCode, isStoredCredentials; a profile without its customer, a currency Authorize.Net lacks are refused unsent', async () => {
    const req = charge({ initiator: 'customer', storedCredential: undefined, networkTransactionId: undefined, card: undefined, gatewayMethod: { paymentMethod: '505', customer: '404' }, cvv: CVV });
    const id = gatewayIdFor(req.idempotencyKey);
    await anet.authorize(req);
    expect(JSON.stringify(last().body)).toBe(JSON.stringify({
      createTransactionRequest: {
        merchantAuthentication: auth,
        refId: id,
        transactionRequest: {
          transactionType: 'authCaptureTransaction', amount: '19.99', currencyCode: 'USD',
          profile: { customerProfileId: '404', paymentProfile: { paymentProfileId: '505', cardCode: CVV } },
          order: { invoiceNumber: id, description: `rescued ${req.idempotencyKey} order ORD-1` },
          transactionSettings: { setting: [DUPLICATE_WINDOW] },
          processingOptions: { isStoredCredentials: true },
        },
      },
    }));
    const sent = fake.requests.length;
    await expect(anet.authorize(charge({ card: undefined, gatewayMethod: { paymentMethod: '505' } }))).rejects.toMatchObject({ kind: 'rejected', code: 'customer_profile_missing' });
    await expect(anet.authorize(charge({ currency: 'JPY' }))).rejects.toMatchObject({ kind: 'rejected', code: 'currency_not_supported' });
    expect(fake.requests).toHaveLength(sent);
  });

  it('maps declines by reason code to the ISO code of their reason, holds, and refused 3-D Secure values', async () => {
    fake.script({ kind: 'decline', reasonCode: '2' }, { kind: 'decline', reasonCode: '4' }, { kind: 'error', reasonCode: '8' }, { kind: 'held', reasonCode: '253' }, { kind: 'error', reasonCode: '117' });
    expect(await anet.authorize(charge())).toMatchObject({ approved: false, responseCode: '05', rawCode: '2', rawMessage: 'This transaction has been declined.', processorRef: expect.stringMatching(/^\d+$/) });
    expect(await anet.authorize(charge())).toMatchObject({ approved: false, responseCode: '04', rawCode: '4' });
    expect(await anet.authorize(charge())).toMatchObject({ approved: false, responseCode: '54', rawCode: '8' });
    const held = await anet.authorize(charge());
    expect(held).toMatchObject({ approved: false, rawCode: '253' });
    expect(held.adviceCode).toBeUndefined();
    expect(await anet.authorize(charge({ initiator: 'customer' }))).toMatchObject({ approved: false, challenge: '3ds', responseCode: '1A', rawCode: '117' });
  });

  it.each([
    [{ kind: 'status', status: 429 } as const, 'rejected'],
    [{ kind: 'api_error', code: 'E00003' } as const, 'rejected'],
    [{ kind: 'error', reasonCode: '39' } as const, 'rejected'],
    [{ kind: 'api_error', code: 'E00001' } as const, 'unknown'],
    [{ kind: 'status', status: 500 } as const, 'unknown'],
    [{ kind: 'status', status: 503 } as const, 'unknown'],
    [{ kind: 'timeout' } as const, 'unknown'],
    [{ kind: 'reset' } as const, 'unknown'],
    [{ kind: 'malformed' } as const, 'unknown'],
  ])('a %o is a GatewayError of kind %s, naming no card data', async (behaviour, kind) => {
    fake.script(behaviour);
    const err = await anet.authorize(charge({ initiator: 'customer', cvv: CVV })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect(err).toMatchObject({ kind });
    const said = JSON.stringify({ m: (err as Error).message, c: String((err as Error).cause), code: (err as GatewayError).code });
    expectNoSecrets(said, [PAN, CVV, fake.transactionKey]);
  });

  it('a slow answer inside the timeout is an approval', async () => {
    fake.script({ kind: 'delay', ms: 100 });
    expect(await anet.authorize(charge())).toMatchObject({ approved: true });
  });

  it('bad credentials are rejected (E00007); an unreachable Authorize.Net is not_sent', async () => {
    const wrong = createAuthorizeNetConnector({ apiLoginId: fake.apiLoginId, transactionKey: 'WRONGWRONGWRONG1', environment: 'sandbox' }, { timeoutMs: 400, baseUrl: fake.url });
    const err = await wrong.authorize(charge()).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'rejected', code: 'E00007' });
    expect((err as Error).message).not.toContain('WRONGWRONGWRONG1');
    await expect(wrong.test()).rejects.toMatchObject({ kind: 'rejected', code: 'E00007' });
    const down = createAuthorizeNetConnector({ apiLoginId: fake.apiLoginId, transactionKey: fake.transactionKey, environment: 'sandbox' }, { timeoutMs: 400, baseUrl: 'http://127.0.0.1:9' });
    expect(await down.authorize(charge()).catch((e: unknown) => e)).toMatchObject({ kind: 'not_sent' });
  });

  it('a reset after the charge: lookup finds the one charge; sent again, the duplicate window answers the first charge', async () => {
    const req = charge();
    fake.script({ kind: 'reset_after_charge' });
    expect(await anet.authorize(req).catch((e: unknown) => e)).toMatchObject({ kind: 'unknown' });
    expect(chargesOf(req)).toHaveLength(1);
    const found = await anet.lookup(req);
    expect(found).toMatchObject({ approved: true, responseCode: '00', processorRef: [...fake.charges.keys()].at(-1), networkTransactionId: expect.stringMatching(/^ntid/) });
    expect(await anet.authorize(req)).toEqual(found);
    expect(chargesOf(req)).toHaveLength(1);
    expect(await anet.lookup({ idempotencyKey: 'never-sent:1', reference: 'x' })).toBeNull();
  });

  it('lookup reads settled batches too, and reports a declined attempt as its decline', async () => {
    const approved = charge();
    const declined = charge();
    fake.script({ kind: 'approve' }, { kind: 'decline', reasonCode: '2' });
    const { processorRef } = await anet.authorize(approved);
    await anet.authorize(declined);
    fake.settle();
    expect(await anet.lookup(approved)).toMatchObject({ approved: true, processorRef });
    expect(await anet.lookup(declined)).toMatchObject({ approved: false, rawCode: '2', responseCode: '05' });
    expect(fake.requests.some((r) => r.api === 'getTransactionListRequest')).toBe(true);
    expect(await anet.lookup({ idempotencyKey: 'never-sent:2', reference: 'x' })).toBeNull();
  });

  it('refunds a settled charge with the last four and XXXX (read from the charge when not given); voids an unsettled one', async () => {
    const { processorRef } = await anet.authorize(charge());
    expect(await anet.refund({ idempotencyKey: 'k:refund:1', reference: 'r', processorRef, amount: 500, currency: 'USD', last4: '0027' })).toMatchObject({ approved: false, rawCode: '54' });
    fake.settle();
    expect(await anet.refund({ idempotencyKey: 'k:refund:2', reference: 'r', processorRef, amount: 500, currency: 'USD', last4: '0027' })).toMatchObject({ approved: true, responseCode: '00' });
    const id = gatewayIdFor('k:refund:2');
    expect(JSON.stringify(last().body)).toBe(JSON.stringify({
      createTransactionRequest: {
        merchantAuthentication: auth,
        refId: id,
        transactionRequest: {
          transactionType: 'refundTransaction', amount: '5.00', currencyCode: 'USD',
          payment: { creditCard: { cardNumber: '0027', expirationDate: 'XXXX' } },
          refTransId: processorRef,
          order: { invoiceNumber: id, description: 'rescued k:refund:2' },
          transactionSettings: { setting: [DUPLICATE_WINDOW] },
        },
      },
    }));
    expect(await anet.refund({ idempotencyKey: 'k:refund:3', reference: 'r', processorRef, amount: 700, currency: 'USD' })).toMatchObject({ approved: true });
    expect(fake.requests.at(-2)!.api).toBe('getTransactionDetailsRequest');

    const unsettled = await anet.authorize(charge());
    expect(await anet.void({ idempotencyKey: 'k:void', reference: 'r', processorRef: unsettled.processorRef, currency: 'USD' })).toMatchObject({ approved: true, responseCode: '00' });
    expect(last().body).toEqual({ createTransactionRequest: { merchantAuthentication: auth, refId: gatewayIdFor('k:void'), transactionRequest: { transactionType: 'voidTransaction', refTransId: unsettled.processorRef } } });
    expect(fake.charges.has(unsettled.processorRef)).toBe(false);
    expect(await anet.void({ idempotencyKey: 'k:void', reference: 'r', processorRef: unsettled.processorRef, currency: 'USD' })).toMatchObject({ approved: true, rawCode: '310' });
  });

  it('test() proves the credentials with authenticateTestRequest and the look-up with one row of the unsettled list', async () => {
    const before = fake.requests.length;
    expect(await anet.test()).toMatch(/Authorize\.Net accepted the API Login ID and Transaction Key \(sandbox\) and answered a transaction list/);
    expect(fake.requests.slice(before).map((r) => r.body)).toEqual([
      { authenticateTestRequest: { merchantAuthentication: auth } },
      { getUnsettledTransactionListRequest: { merchantAuthentication: auth, status: 'any', sorting: { orderBy: 'submitTimeUTC', orderDescending: true }, paging: { limit: 1, offset: 1 } } },
    ]);
  });
});

describe('Authorize.Net look-up over several pages', () => {
  let fake: AuthorizeNetFake;
  beforeAll(async () => {
    fake = await startAuthorizeNetFake({ maxPageSize: 2 });
  });
  afterAll(async () => fake?.close());

  it('reads a list to its announced total even when the pages are shorter than asked', async () => {
    const anet = createAuthorizeNetConnector({ apiLoginId: fake.apiLoginId, transactionKey: fake.transactionKey, environment: 'sandbox' }, { timeoutMs: 400, baseUrl: fake.url });
    const reqs = Array.from({ length: 5 }, () => charge());
    const answers = [];
    for (const req of reqs) answers.push(await anet.authorize(req));
    const before = fake.requests.length;
    expect(await anet.lookup(reqs[0]!)).toMatchObject({ approved: true, processorRef: answers[0]!.processorRef });
    expect(fake.requests.slice(before).filter((r) => r.api === 'getUnsettledTransactionListRequest')).toHaveLength(3);
    expect(await anet.lookup({ idempotencyKey: 'never-sent:3', reference: 'x' })).toBeNull();
  });
});

describe('Authorize.Net connector over TLS', () => {
  let dir: string;
  let fake: AuthorizeNetFake;
  let cert: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rescued-anet-tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    fake = await startAuthorizeNetFake({ tls: { cert, key: readFileSync(join(dir, 'key.pem'), 'utf8') } });
  });
  afterAll(async () => {
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('trusts opts.ca; without it the certificate is refused before anything is sent', async () => {
    const credentials = { apiLoginId: fake.apiLoginId, transactionKey: fake.transactionKey, environment: 'production' as const };
    const trusted = createAuthorizeNetConnector(credentials, { timeoutMs: 500, baseUrl: fake.url, ca: cert });
    expect(await trusted.authorize(charge())).toMatchObject({ approved: true });
    const untrusted = createAuthorizeNetConnector(credentials, { timeoutMs: 500, baseUrl: fake.url });
    expect(await untrusted.authorize(charge()).catch((e: unknown) => e)).toMatchObject({ kind: 'not_sent' });
    expect(fake.charges.size).toBe(1);
  });
});
