// The HTTP bridge connector against a local bridge written from the protocol
// (docs/gateways/http.md): the exact JSON sent for CIT, MIT-recurring and MIT-unscheduled,
// for vault cards and gateway payment methods; signatures that the published
// `standardwebhooks` verifier accepts; answers mapped; each failure kind and that none names
// card data; the idempotency obligation (a reset after the charge, then the same key: one
// charge); look-up, refund, void and test; and the runnable sample bridge in
// samples/http-bridge/, started as a child process.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayError, type ChargeRequest } from '../../../src/processors/connector.ts';
import { createHttpBridgeConnector } from '../../../src/processors/http/index.ts';
import { startBridgeFake, type BridgeBehaviour, type BridgeFake } from '../../fakes/http/server.ts';
import { waitFor } from '../../helpers/wait.ts';
import { expectNoSecrets } from '../../helpers/secrets.ts';

const PAN = '4242424242424242';
const CVV = '737';
const ORDER = '0f8fad5b-d9cb-469f-a165-70867728950e';
let n = 0;
const charge = (over: Partial<ChargeRequest> = {}): ChargeRequest => ({
  idempotencyKey: `${ORDER}:${++n}`, reference: ORDER, orderId: 'ORD-1',
  amount: 1999, currency: 'USD', card: { number: PAN, expMonth: 12, expYear: 2030, holderName: 'Jane Doe' },
  initiator: 'merchant', storedCredential: 'recurring', networkTransactionId: '583503141592653', ...over,
});
const TDS = { version: '2.2.0', eci: '05', authenticationValue: 'AAABBEg0VhI0VniQEjRWAAAAAAA=', dsTransactionId: 'f25084f0-5b16-4c0a-ae5d-b24808a95e4b' };
const errorOf = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e);

/** A port nothing listens on (not one of fetch's "bad ports"). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as { port: number };
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

describe('HTTP bridge connector', () => {
  let fake: BridgeFake;
  let bridge: ReturnType<typeof createHttpBridgeConnector>;
  beforeAll(async () => {
    fake = await startBridgeFake();
    bridge = createHttpBridgeConnector({ url: fake.url, secret: fake.secret }, { timeoutMs: 400 });
  });
  afterAll(async () => fake?.close());
  const last = () => fake.requests.at(-1)!;

  it('MIT recurring with a vault card: the exact body, signed, the key as Idempotency-Key', async () => {
    const req = charge();
    const answer = await bridge.authorize(req);
    expect(answer).toEqual({ approved: true, responseCode: '00', processorRef: expect.stringMatching(/^ch_/), rawCode: 'approved', networkTransactionId: expect.stringMatching(/^ntid_ch_/) });
    expect(last().body).toEqual({
      version: 1, operation: 'authorize', idempotencyKey: req.idempotencyKey, reference: ORDER, orderId: 'ORD-1',
      amount: 1999, currency: 'USD', initiator: 'merchant', storedCredential: 'recurring', networkTransactionId: '583503141592653',
      card: { number: PAN, expMonth: 12, expYear: 2030, holderName: 'Jane Doe' },
    });
    expect(last().headers).toMatchObject({ 'content-type': 'application/json', 'idempotency-key': req.idempotencyKey, 'webhook-id': `authorize:${req.idempotencyKey}` });
  });

  it('MIT unscheduled with the gateway\'s payment method: paymentMethod {id, customer}, no card', async () => {
    const req = charge({ card: undefined, gatewayMethod: { paymentMethod: 'pm_123', customer: 'cus_9' }, storedCredential: 'unscheduled', orderId: undefined, currency: 'eur' });
    await bridge.authorize(req);
    expect(last().body).toEqual({
      version: 1, operation: 'authorize', idempotencyKey: req.idempotencyKey, reference: ORDER, amount: 1999, currency: 'EUR',
      initiator: 'merchant', storedCredential: 'unscheduled', networkTransactionId: '583503141592653', paymentMethod: { id: 'pm_123', customer: 'cus_9' },
    });
  });

  it('CIT: no stored-credential fields, the challenge CVV once, 3-D Secure results passed through', async () => {
    const req = charge({ initiator: 'customer', storedCredential: undefined, cvv: CVV, threeDSecure: TDS });
    await bridge.authorize(req);
    expect(last().body).toEqual({
      version: 1, operation: 'authorize', idempotencyKey: req.idempotencyKey, reference: ORDER, orderId: 'ORD-1', amount: 1999, currency: 'USD',
      initiator: 'customer', card: { number: PAN, expMonth: 12, expYear: 2030, holderName: 'Jane Doe' }, cvv: CVV, threeDSecure: TDS,
    });
    // Without a challenge the CVV is absent, and an MIT carries no 3-D Secure data.
    await bridge.authorize(charge({ threeDSecure: TDS }));
    expect(last().body).not.toHaveProperty('cvv');
    expect(last().body).not.toHaveProperty('threeDSecure');
  });

  it('every call verifies with the standardwebhooks package, and only over the exact bytes', async () => {
    await bridge.authorize(charge());
    const { raw, headers } = last();
    const verifier = new Webhook(fake.secret);
    expect(verifier.verify(raw, headers as Record<string, string>)).toMatchObject({ operation: 'authorize' });
    expect(() => verifier.verify(raw.replace('1999', '1998'), headers as Record<string, string>)).toThrow(/signature/i);
    expect(() => new Webhook(`whsec_${randomBytes(32).toString('base64')}`).verify(raw, headers as Record<string, string>)).toThrow(/signature/i);
    expect(fake.requests.every((r) => r.signed)).toBe(true);
  });

  it('maps declines with the ISO code, the advice code and the raw code, and challenges', async () => {
    fake.script({ kind: 'decline', responseCode: '51', adviceCode: '24', rawCode: 'insufficient_funds', rawMessage: 'Insufficient funds' });
    expect(await bridge.authorize(charge())).toEqual({ approved: false, responseCode: '51', adviceCode: '24', rawCode: 'insufficient_funds', rawMessage: 'Insufficient funds', processorRef: expect.stringMatching(/^ch_/) });
    fake.script({ kind: 'decline', responseCode: 'n7' });
    expect(await bridge.authorize(charge())).toMatchObject({ approved: false, responseCode: 'N7' });
    fake.script({ kind: 'challenge', method: '3ds' });
    expect(await bridge.authorize(charge({ initiator: 'customer', storedCredential: undefined }))).toMatchObject({ approved: false, responseCode: '1A', challenge: '3ds' });
  });

  it.each<[BridgeBehaviour, GatewayError['kind'], number | undefined]>([
    [{ kind: 'status', status: 400 }, 'rejected', 400],
    [{ kind: 'status', status: 404 }, 'rejected', 404],
    [{ kind: 'status', status: 422 }, 'rejected', 422],
    [{ kind: 'status', status: 429 }, 'rejected', 429],
    [{ kind: 'status', status: 409 }, 'unknown', 409],
    [{ kind: 'status', status: 500 }, 'unknown', 500],
    [{ kind: 'status', status: 502 }, 'unknown', 502],
    [{ kind: 'status', status: 503 }, 'unknown', 503],
    [{ kind: 'created' }, 'unknown', 201],
    [{ kind: 'timeout' }, 'unknown', undefined],
    [{ kind: 'reset' }, 'unknown', undefined],
    [{ kind: 'malformed' }, 'unknown', 200],
    [{ kind: 'off_protocol' }, 'unknown', 200],
  ])('%o is a GatewayError of kind %s (HTTP %s), naming no card data or secret', async (behaviour, kind, status) => {
    fake.script(behaviour);
    const err = await errorOf(bridge.authorize(charge({ initiator: 'customer', storedCredential: undefined, cvv: CVV })));
    expect(err).toBeInstanceOf(GatewayError);
    expect(err).toMatchObject({ kind, status });
    const seen = JSON.stringify({ m: (err as Error).message, c: String((err as Error).cause), code: (err as GatewayError).code });
    expectNoSecrets(seen, [PAN, CVV, fake.secret, fake.secret.slice('whsec_'.length)]);
  });

  it('keeps the bridge\'s error code, never its message', async () => {
    fake.script({ kind: 'status', status: 503 });
    const err = await errorOf(bridge.authorize(charge()));
    expect(err).toMatchObject({ kind: 'unknown', code: 'gateway_unavailable', message: 'the bridge answered HTTP 503: gateway_unavailable' });
  });

  it('a wrong secret is refused (401, rejected); an unreachable bridge is not_sent', async () => {
    const wrong = createHttpBridgeConnector({ url: fake.url, secret: `whsec_${randomBytes(32).toString('base64')}` }, { timeoutMs: 400 });
    expect(await errorOf(wrong.authorize(charge()))).toMatchObject({ kind: 'rejected', status: 401, code: 'bad_signature' });
    await expect(wrong.test()).rejects.toMatchObject({ kind: 'rejected', status: 401 });
    const down = createHttpBridgeConnector({ url: `http://127.0.0.1:${await closedPort()}/`, secret: fake.secret }, { timeoutMs: 400 });
    expect(await errorOf(down.authorize(charge()))).toMatchObject({ kind: 'not_sent', code: 'ECONNREFUSED' });
    const blocked = createHttpBridgeConnector({ url: 'http://127.0.0.1:6000/', secret: fake.secret }, { timeoutMs: 400 });
    expect(await errorOf(blocked.authorize(charge()))).toMatchObject({ kind: 'not_sent', code: 'bad_port' });
  });

  it('a reset after the charge, then the same key: the first answer again, one charge; lookup finds it', async () => {
    const req = charge();
    fake.script({ kind: 'reset_after_charge' });
    expect(await errorOf(bridge.authorize(req))).toMatchObject({ kind: 'unknown' });
    const again = await bridge.authorize(req);
    expect(again).toMatchObject({ approved: true });
    expect([...fake.charges.values()].filter((c) => c.key === req.idempotencyKey)).toHaveLength(1);
    expect(await bridge.lookup(req)).toEqual(again);
    const asked = last();
    expect(asked.body).toEqual({ version: 1, operation: 'lookup', idempotencyKey: expect.stringMatching(/^[0-9a-f-]{36}$/), chargeKey: req.idempotencyKey, reference: ORDER });
    expect(asked.headers['idempotency-key']).toBe(asked.body.idempotencyKey);
    expect(await bridge.lookup({ idempotencyKey: `${ORDER}:999`, reference: ORDER })).toBeNull();
  });

  it('the same key while the first call is still running: 409, unknown; then the first answer', async () => {
    const req = charge();
    // The bridge holds the first call until both twins have been refused.
    let answerFirst!: () => void;
    const held = new Promise<void>((resolve) => (answerFirst = resolve));
    fake.script({ kind: 'hold', released: () => held });
    const seen = fake.requests.length;
    const first = bridge.authorize(req);
    await waitFor(() => fake.requests.length > seen, { what: 'the first call at the bridge' });
    expect(await errorOf(bridge.authorize(req))).toMatchObject({ kind: 'unknown', status: 409 });
    expect(await errorOf(bridge.lookup(req))).toMatchObject({ kind: 'unknown', status: 409 });
    answerFirst();
    const answer = await first;
    expect(await bridge.authorize(req)).toEqual(answer);
  });

  it('refunds and voids the charge with their own keys; test() proves the secret', async () => {
    const { processorRef } = await bridge.authorize(charge());
    expect(await bridge.refund({ idempotencyKey: `${ORDER}:refund:1`, reference: ORDER, processorRef, amount: 500, currency: 'usd' })).toMatchObject({ approved: true, responseCode: '00', processorRef: expect.stringMatching(/^re_/) });
    expect(last().body).toEqual({ version: 1, operation: 'refund', idempotencyKey: `${ORDER}:refund:1`, reference: ORDER, processorRef, amount: 500, currency: 'USD' });
    expect(await bridge.void({ idempotencyKey: `${ORDER}:void:1`, reference: ORDER, processorRef, currency: 'USD' })).toMatchObject({ approved: true });
    expect(last().body).toEqual({ version: 1, operation: 'void', idempotencyKey: `${ORDER}:void:1`, reference: ORDER, processorRef, currency: 'USD' });
    expect(fake.charges.has(processorRef)).toBe(false);
    expect(await errorOf(bridge.refund({ idempotencyKey: `${ORDER}:refund:2`, reference: ORDER, processorRef: 'ch_none', amount: 1, currency: 'USD' }))).toMatchObject({ kind: 'rejected', status: 404 });
    expect(await bridge.test()).toBe('the bridge accepted a signed test call and said: fake bridge, protocol version 1');
    expect(last().body).toEqual({ version: 1, operation: 'test', idempotencyKey: expect.stringMatching(/^[0-9a-f-]{36}$/) });
  });
});

describe('the sample bridge (samples/http-bridge/server.ts)', () => {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  let child: ChildProcess;
  let url: string;
  beforeAll(async () => {
    const script = fileURLToPath(new URL('../../../samples/http-bridge/server.ts', import.meta.url));
    child = spawn(process.execPath, [script], { env: { PATH: process.env.PATH, BRIDGE_SECRET: secret, BRIDGE_PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`the sample bridge exited (${code})`)));
    });
  });
  afterAll(() => void child?.kill('SIGTERM'));

  it('authorizes, declines and refunds test cards through the connector, and refuses a bad signature', async () => {
    const sample = createHttpBridgeConnector({ url, secret }, { timeoutMs: 2000 });
    const approved = await sample.authorize(charge());
    expect(approved).toMatchObject({ approved: true, responseCode: '00', networkTransactionId: expect.any(String) });
    expect(await sample.authorize(charge({ card: { number: '4000000000009995', expMonth: 1, expYear: 2031 } }))).toMatchObject({ approved: false, responseCode: '51' });
    expect(await sample.authorize(charge({ initiator: 'customer', storedCredential: undefined, card: { number: '4000000000000101', expMonth: 1, expYear: 2031 } }))).toMatchObject({ approved: false, challenge: 'cvv' });
    expect(await sample.refund({ idempotencyKey: `${ORDER}:refund:9`, reference: ORDER, processorRef: approved.processorRef, amount: 100, currency: 'USD' })).toMatchObject({ approved: true });
    expect(await sample.lookup({ idempotencyKey: `${ORDER}:${n}`, reference: ORDER })).toMatchObject({ approved: false, challenge: 'cvv' });
    expect(await sample.test()).toMatch(/sample bridge, protocol version 1/);
    const wrong = createHttpBridgeConnector({ url, secret: `whsec_${randomBytes(32).toString('base64')}` }, { timeoutMs: 2000 });
    expect(await errorOf(wrong.authorize(charge()))).toMatchObject({ kind: 'rejected', status: 401, code: 'bad_signature' });
  });
});
