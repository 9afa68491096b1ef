// Failed authentications are limited per presented id and per source address: a run of bad
// secrets meets 429 with Retry-After instead of one 401 after another, and a good client on
// another address is not locked out by it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS } from '../../helpers/db.ts';
import { testApp, type TestApp } from '../../helpers/app.ts';
import { registry } from '../../../src/metrics.ts';
import type { MerchantCredentials } from '../../../src/merchants/service.ts';

const CARD = { payment_method: { credit_card: { first_name: 'Jane', last_name: 'Doe', number: '4111111111111111', month: '12', year: '2035' } } };

describe.each(DB_KINDS)('failed authentications are throttled on %s', (kind) => {
  let t: TestApp;
  let x: MerchantCredentials;
  let y: MerchantCredentials;
  beforeAll(async () => {
    t = await testApp(kind, undefined, { authThrottle: { failuresPerClient: 5, failuresPerAddress: 3, failureWindowSeconds: 60 } });
    x = await t.merchants.add({ name: 'X' });
    y = await t.merchants.add({ name: 'Y' });
  });
  afterAll(async () => t?.close());

  const token = (clientId: string, secret: string, from: string) =>
    t.app.inject({ method: 'POST', url: '/oauth2/token', remoteAddress: from, payload: { appKey: clientId, appSecret: secret } });
  const tokenize = (mid: string, key: string, from: string) =>
    t.app.inject({ method: 'POST', url: `/v1/tokenize?mid=${mid}&environment=${encodeURIComponent(key)}`, remoteAddress: from, payload: CARD });
  const throttled = async () => Number(/rescued_auth_throttled_total\{endpoint="token"\} (\d+)/.exec(await registry.metrics())?.[1] ?? 0);

  it('per address: the fourth bad secret from one address is 429 with Retry-After; a good client elsewhere gets its token', async () => {
    const before = await throttled();
    for (let i = 0; i < 3; i++) expect((await token(x.clientId, 'rcs_wrong', '203.0.113.1')).statusCode).toBe(401);
    const refused = await token(x.clientId, 'rcs_wrong', '203.0.113.1');
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(50);
    expect(refused.json()).toMatchObject({ error: 'temporarily_unavailable', statusCode: 'ERR_AUTH_TOO_MANY_FAILURES' });
    // The address is held off even with the right secret: guessing from it is pointless.
    expect((await token(x.clientId, x.clientSecret, '203.0.113.1')).statusCode).toBe(429);
    expect((await token(x.clientId, x.clientSecret, '198.51.100.7')).statusCode).toBe(200);
    expect(await throttled()).toBe(before + 2);
  });

  it('per client id: bad secrets for one client from many addresses stop at its limit', async () => {
    for (let i = 0; i < 5; i++) expect((await token(y.clientId, 'rcs_wrong', `192.0.2.${i + 1}`)).statusCode).toBe(401);
    expect((await token(y.clientId, 'rcs_wrong', '192.0.2.99')).statusCode).toBe(429);
    // Successes never count: client X, which authenticated above, is unaffected.
    for (let i = 0; i < 6; i++) expect((await token(x.clientId, x.clientSecret, '198.51.100.8')).statusCode).toBe(200);
  });

  it('tokenize: bad tokenization keys are throttled per mid and per address', async () => {
    for (let i = 0; i < 3; i++) expect((await tokenize(x.mid, 'rtk_wrong', '203.0.113.50')).statusCode).toBe(401);
    const refused = await tokenize(x.mid, 'rtk_wrong', '203.0.113.50');
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect((await tokenize(x.mid, x.tokenizationKey, '198.51.100.9')).statusCode).toBe(200);
  });
});
