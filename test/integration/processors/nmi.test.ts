// The NMI connector against a local fake written from NMI's Payment API and Query API
// references: the exact variables sent for CIT, MIT-recurring and MIT-unscheduled, for vault
// cards and Customer Vault ids; answers mapped (approval, declines with result and advice
// codes, authentication required); each failure kind; a reset after the charge reconciled by
// the Query API; refunds, voids and the credentials test; a fake served over TLS.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayError, type ChargeRequest } from '../../../src/processors/connector.ts';
import { parseXml } from '../../../src/processors/nmi/answer.ts';
import { createNmiConnector } from '../../../src/processors/nmi/index.ts';
import { majorUnits } from '../../../src/processors/nmi/request.ts';
import { startNmiFake, type NmiFake, type Scripted } from '../../fakes/nmi/server.ts';
import { expectNoSecrets } from '../../helpers/secrets.ts';

const PAN = '4111111111111111';
const CVV = '737';
const SESSION = '0f8fad5b-d9cb-469f-a165-70867728950e';
let n = 0;
const charge = (over: Partial<ChargeRequest> = {}): ChargeRequest => ({
  idempotencyKey: `${SESSION}:${++n}`, reference: SESSION, orderId: 'ORD-1',
  amount: 1999, currency: 'USD', card: { number: PAN, expMonth: 12, expYear: 2030, holderName: 'Jane Doe' },
  initiator: 'merchant', storedCredential: 'recurring', networkTransactionId: '3987654321', ...over,
});
const TDS = { version: '2.2.0', eci: '05', authenticationValue: 'AAABBEg0VhI0VniQEjRWAAAAAAA=', dsTransactionId: 'f25084f0-5b16-4c0a-ae5d-b24808a95e4b' };

/** The error's every text, for "names no card data and no credentials". */
const texts = (err: unknown) => JSON.stringify({ m: (err as Error).message, c: String((err as Error).cause), e: err });

describe('NMI connector', () => {
  let fake: NmiFake;
  let nmi: ReturnType<typeof createNmiConnector>;
  beforeAll(async () => {
    fake = await startNmiFake();
    nmi = createNmiConnector({ securityKey: fake.key }, { timeoutMs: 300, baseUrl: fake.url });
  });
  afterAll(async () => fake?.close());
  const last = () => fake.requests.at(-1)!;
  const failing = (p: Promise<unknown>) => p.then(() => expect.fail('expected a GatewayError'), (e: unknown) => e as GatewayError);

  it('MIT recurring with a vault card: sale, the card, the stored-credential variables, the key as orderid', async () => {
    const req = charge();
    const answer = await nmi.authorize(req);
    expect(answer).toEqual({ approved: true, responseCode: '00', processorRef: expect.stringMatching(/^\d{10}$/), rawCode: '100', rawMessage: 'SUCCESS' });
    expect(last()).toMatchObject({ method: 'POST', path: '/api/transact.php', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(last().body).toEqual({
      security_key: fake.key, type: 'sale', amount: '19.99', currency: 'USD', orderid: req.idempotencyKey, order_description: 'ORD-1',
      ccnumber: PAN, ccexp: '1230', first_name: 'Jane', last_name: 'Doe',
      initiated_by: 'merchant', stored_credential_indicator: 'used', billing_method: 'recurring', initial_transaction_id: '3987654321',
    });
    expect(last().headers['idempotency-key']).toBeUndefined();
    expect(nmi).toMatchObject({ type: 'nmi', idempotent: false, acceptsCards: true });
  });

  it('an MIT never carries a CVV', async () => {
    await nmi.authorize(charge({ cvv: CVV }));
    expect(last().body.cvv).toBeUndefined();
  });

  it('MIT unscheduled with a Customer Vault id: no card, no billing method', async () => {
    const req = charge({ card: undefined, gatewayMethod: { paymentMethod: '1078550313', customer: 'ignored' }, storedCredential: 'unscheduled', orderId: undefined });
    expect(await nmi.authorize(req)).toMatchObject({ approved: true });
    expect(last().body).toEqual({
      security_key: fake.key, type: 'sale', amount: '19.99', currency: 'USD', orderid: req.idempotencyKey, customer_vault_id: '1078550313',
      initiated_by: 'merchant', stored_credential_indicator: 'used', initial_transaction_id: '3987654321',
    });
  });

  it('a network transaction id goes in initial_network_transaction_id when the account chains by it; processor_id routes to the MID', async () => {
    const chained = createNmiConnector({ securityKey: fake.key, storedCredentialChain: 'network_transaction_id', processorId: 'ccprocessora' }, { timeoutMs: 300, baseUrl: fake.url });
    const req = charge({ networkTransactionId: '583103536844189', card: { number: PAN, expMonth: 3, expYear: 2031 } });
    await chained.authorize(req);
    expect(last().body).toEqual({
      security_key: fake.key, type: 'sale', amount: '19.99', currency: 'USD', orderid: req.idempotencyKey, order_description: 'ORD-1',
      ccnumber: PAN, ccexp: '0331', initiated_by: 'merchant', stored_credential_indicator: 'used', billing_method: 'recurring',
      initial_network_transaction_id: '583103536844189', processor_id: 'ccprocessora',
    });
  });

  it('CIT: initiated_by=customer, the challenge CVV sent once, 3-D Secure results passed through', async () => {
    const req = charge({ initiator: 'customer', storedCredential: undefined, networkTransactionId: undefined, cvv: CVV, threeDSecure: TDS });
    await nmi.authorize(req);
    expect(last().body).toEqual({
      security_key: fake.key, type: 'sale', amount: '19.99', currency: 'USD', orderid: req.idempotencyKey, order_description: 'ORD-1',
      ccnumber: PAN, ccexp: '1230', cvv: CVV, first_name: 'Jane', last_name: 'Doe', initiated_by: 'customer',
      cardholder_auth: 'verified', cavv: TDS.authenticationValue, eci: '05', three_ds_version: '2.2.0', directory_server_id: TDS.dsTransactionId,
    });
    // Mastercard's "attempted" ECI; an ECI that is no authentication sends no 3DS variables; no CVV unless given.
    await nmi.authorize(charge({ initiator: 'customer', storedCredential: undefined, threeDSecure: { ...TDS, eci: '01' } }));
    expect(last().body).toMatchObject({ cardholder_auth: 'attempted', eci: '01' });
    expect(last().body.cvv).toBeUndefined();
    await nmi.authorize(charge({ initiator: 'customer', storedCredential: undefined, threeDSecure: { ...TDS, eci: '07' } }));
    expect(Object.keys(last().body).filter((k) => /cardholder_auth|cavv|eci|three_ds|directory/.test(k))).toEqual([]);
  });

  it('amounts in major units with the currency\'s own decimals', () => {
    expect([majorUnits(1999, 'USD'), majorUnits(5, 'EUR'), majorUnits(1999, 'JPY'), majorUnits(1999, 'KWD'), majorUnits(0, 'USD')]).toEqual(['19.99', '0.05', '1999', '1.999', '0.00']);
  });

  it('maps declines by result code, with the Mastercard advice code when NMI sends it', async () => {
    fake.script({ kind: 'decline', code: '202', text: 'Insufficient funds', adviceCode: '24' });
    expect(await nmi.authorize(charge())).toEqual({ approved: false, responseCode: '51', adviceCode: '24', processorRef: expect.stringMatching(/^\d{10}$/), rawCode: '202', rawMessage: 'Insufficient funds' });
    fake.script({ kind: 'decline', code: '251', text: 'Lost card' }, { kind: 'decline', code: '261', text: 'Stop all recurring payments' });
    expect(await nmi.authorize(charge())).toMatchObject({ approved: false, responseCode: '43', rawCode: '251' });
    expect(await nmi.authorize(charge())).toMatchObject({ approved: false, responseCode: 'R0', rawCode: '261' });
  });

  it('maps a decline that asks for cardholder authentication to a 3-D Secure challenge', async () => {
    fake.script({ kind: 'authentication_required' });
    expect(await nmi.authorize(charge({ initiator: 'customer', storedCredential: undefined }))).toMatchObject({ approved: false, challenge: '3ds', responseCode: '1A', rawCode: '260' });
  });

  it('response=3 from the processor about the payment is a decline; about the account, a rejection', async () => {
    fake.script({ kind: 'error', code: '420', text: 'Communication error' }, { kind: 'error', code: '410', text: 'Invalid merchant configuration' });
    expect(await nmi.authorize(charge())).toMatchObject({ approved: false, responseCode: '96', rawCode: '420' });
    expect(await failing(nmi.authorize(charge()))).toMatchObject({ kind: 'rejected', code: '410' });
  });

  it.each<[Scripted, string]>([
    [{ kind: 'status', status: 429 }, 'rejected'],
    [{ kind: 'error', code: '301', text: 'Rate limit exceeded' }, 'rejected'],
    [{ kind: 'status', status: 403 }, 'rejected'],
    [{ kind: 'status', status: 500 }, 'unknown'],
    [{ kind: 'status', status: 503 }, 'unknown'],
    [{ kind: 'timeout' }, 'unknown'],
    [{ kind: 'reset' }, 'unknown'],
    [{ kind: 'malformed' }, 'unknown'],
  ])('a %o is a GatewayError of kind %s, naming no card data', async (behaviour, kind) => {
    fake.script(behaviour);
    const err = await failing(nmi.authorize(charge({ initiator: 'customer', storedCredential: undefined, cvv: CVV })));
    expect(fake.requests.at(-1)!.body).toMatchObject({ ccnumber: PAN, cvv: CVV });
    expect(err).toBeInstanceOf(GatewayError);
    expect(err).toMatchObject({ kind });
    expectNoSecrets(texts(err), [PAN, CVV, fake.key]);
  });

  it('a delay within the timeout is an answer', async () => {
    fake.script({ kind: 'delay', ms: 100 });
    expect(await nmi.authorize(charge())).toMatchObject({ approved: true });
  });

  it('bad credentials are rejected; an unreachable NMI is not_sent', async () => {
    const wrong = createNmiConnector({ securityKey: 'WrongWrongWrongWrongWrong0123456' }, { timeoutMs: 300, baseUrl: fake.url });
    const err = await failing(wrong.authorize(charge()));
    expect(err).toMatchObject({ kind: 'rejected', code: '300', message: expect.stringContaining('Authentication Failed') });
    expect(texts(err)).not.toContain(PAN);
    await expect(wrong.test()).rejects.toMatchObject({ kind: 'rejected', code: 'query_error' });
    const down = createNmiConnector({ securityKey: fake.key }, { timeoutMs: 300, baseUrl: 'http://127.0.0.1:9' });
    const refused = await failing(down.authorize(charge()));
    expect(refused).toMatchObject({ kind: 'not_sent' });
    expect(texts(refused)).not.toContain(PAN);
  });

  it('a reset after the charge: unknown, one charge, and the look-up by order id finds it', async () => {
    const req = charge();
    fake.script({ kind: 'reset_after_charge' });
    expect(await failing(nmi.authorize(req))).toMatchObject({ kind: 'unknown' });
    const taken = [...fake.charges.entries()].filter(([, c]) => c.orderid === req.idempotencyKey);
    expect(taken).toHaveLength(1);
    expect(await nmi.lookup(req)).toEqual({ approved: true, responseCode: '00', processorRef: taken[0]![0], rawCode: '100', rawMessage: 'SUCCESS' });
    expect(last()).toMatchObject({ path: '/api/query.php', body: { security_key: fake.key, order_id: req.idempotencyKey } });
    expect(await nmi.lookup({ idempotencyKey: `${SESSION}:never-sent`, reference: SESSION })).toBeNull();
  });

  it('the look-up reports a decline as a decline, and any failure of its own as unknown', async () => {
    const req = charge();
    fake.script({ kind: 'decline', code: '201', text: 'Do Not Honor' });
    await nmi.authorize(req);
    expect(await nmi.lookup(req)).toMatchObject({ approved: false, responseCode: '05', rawCode: '201', rawMessage: 'Do Not Honor' });
    fake.script({ kind: 'malformed', at: 'query' }, { kind: 'status', status: 429, at: 'query' }, { kind: 'reset', at: 'query' });
    for (let i = 0; i < 3; i++) expect(await failing(nmi.lookup(req))).toMatchObject({ kind: 'unknown' });
    const wrong = createNmiConnector({ securityKey: 'WrongWrongWrongWrongWrong0123456' }, { timeoutMs: 300, baseUrl: fake.url });
    expect(await failing(wrong.lookup(req))).toMatchObject({ kind: 'unknown', code: 'query_error' });
    const down = createNmiConnector({ securityKey: fake.key }, { timeoutMs: 300, baseUrl: 'http://127.0.0.1:9' });
    expect(await failing(down.lookup(req))).toMatchObject({ kind: 'unknown' });
  });

  it('the look-up prefers the charge when one key was sent twice (NMI keeps both: it has no idempotency)', async () => {
    const req = charge();
    fake.script({ kind: 'decline', code: '202', text: 'Insufficient funds' }, { kind: 'approve' });
    await nmi.authorize(req);
    const second = await nmi.authorize(req);
    expect(await nmi.lookup(req)).toMatchObject({ approved: true, processorRef: second.processorRef });
  });

  it('refunds and voids by transaction id', async () => {
    const { processorRef } = await nmi.authorize(charge());
    const refund = await nmi.refund({ idempotencyKey: `${SESSION}:refund:1`, reference: SESSION, processorRef, amount: 500, currency: 'USD' });
    expect(refund).toMatchObject({ approved: true, responseCode: '00', processorRef: expect.not.stringMatching(new RegExp(`^${processorRef}$`)) });
    expect(last().body).toEqual({ security_key: fake.key, type: 'refund', transactionid: processorRef, amount: '5.00' });
    // The refund is listed under the charge's order id too; the look-up still answers with the sale.
    expect(await nmi.lookup({ idempotencyKey: fake.charges.get(processorRef)!.orderid, reference: SESSION })).toMatchObject({ approved: true, processorRef });
    expect(await failing(nmi.refund({ idempotencyKey: `${SESSION}:refund:2`, reference: SESSION, processorRef, amount: 5000, currency: 'USD' }))).toMatchObject({ kind: 'rejected', code: '300' });

    const other = await nmi.authorize(charge());
    expect(await nmi.void({ idempotencyKey: `${SESSION}:void`, reference: SESSION, processorRef: other.processorRef, currency: 'USD' })).toMatchObject({ approved: true, processorRef: other.processorRef });
    expect(last().body).toEqual({ security_key: fake.key, type: 'void', transactionid: other.processorRef });
    expect(fake.charges.has(other.processorRef)).toBe(false);
  });

  it('test() proves the key with a look-up that finds nothing', async () => {
    expect(await nmi.test()).toBe('NMI accepted the security key (the Query API answered a look-up by order id)');
    expect(last()).toMatchObject({ path: '/api/query.php', body: { security_key: fake.key, order_id: 'rescued-connection-test' } });
  });
});

describe('NMI connector over TLS', () => {
  let dir: string;
  let fake: NmiFake;
  let cert: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rescued-nmi-tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    fake = await startNmiFake({ tls: { cert, key: readFileSync(join(dir, 'key.pem'), 'utf8') } });
  });
  afterAll(async () => {
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('trusts opts.ca; without it the certificate is refused before anything is sent', async () => {
    const trusted = createNmiConnector({ securityKey: fake.key }, { timeoutMs: 500, baseUrl: fake.url, ca: cert });
    expect(await trusted.authorize(charge())).toMatchObject({ approved: true });
    const untrusted = createNmiConnector({ securityKey: fake.key }, { timeoutMs: 500, baseUrl: fake.url });
    expect(await untrusted.authorize(charge()).catch((e: unknown) => e)).toMatchObject({ kind: 'not_sent' });
    expect(fake.charges.size).toBe(1);
  });
});

describe('NMI Query API XML', () => {
  it('reads elements, entities, CDATA and comments; drops attributes', () => {
    const doc = parseXml('\uFEFF<?xml version="1.0"?>\n<!-- q --><nm_response><transaction><order_id>a&amp;b&#60;&#x3E;</order_id><merchant_defined_field id="1"/><t><![CDATA[<x>]]></t></transaction></nm_response>\n');
    expect(doc).toEqual({ name: 'nm_response', text: '', children: [{ name: 'transaction', text: '', children: [
      { name: 'order_id', text: 'a&b<>', children: [] }, { name: 'merchant_defined_field', text: '', children: [] }, { name: 't', text: '<x>', children: [] },
    ] }] });
  });

  it.each([
    ['<nm_response><a></b></nm_response>', /closes nothing open/],
    ['<nm_response></nm_response><nm_response/>', /second root/],
    ['<!DOCTYPE x [<!ENTITY e "boom">]><nm_response>&e;</nm_response>', /DTD/],
    ['<nm_response>a & b</nm_response>', /bare &/],
    ['<nm_response><a>', /unterminated/],
    ['text<nm_response/>', /outside the root/],
    ['<nm_response><a b=1/></nm_response>', /malformed tag/],
  ])('refuses %s', (xml, why) => {
    expect(() => parseXml(xml)).toThrow(why);
  });
});
