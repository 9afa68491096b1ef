// Revocation that revokes: a token issued to an API client stops working once that client is
// rotated away (within the status cache's bound), and so does a revoked tokenization key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { DB_KINDS } from '../../helpers/db.ts';
import { testApp, type TestApp } from '../../helpers/app.ts';
import { tokenizationKeys, merchants as merchantRows } from '../../../src/db/schema.ts';

const CARD = { payment_method: { credit_card: { first_name: 'Jane', last_name: 'Doe', number: '4111111111111111', month: '12', year: '2035' } } };
const MISSING_ORDER = '/v1/orders/00000000-0000-4000-8000-000000000000';

describe.each(DB_KINDS)('revocation on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    // The daemon caches a client's status for 5 s; here 200 ms, waited for below.
    t = await testApp(kind, undefined, { activeCacheMs: 200, keyCacheMs: 200 });
  });
  afterAll(async () => t?.close());

  async function tokenFor(clientId: string, clientSecret: string): Promise<string> {
    const res = await t.app.inject({ method: 'POST', url: '/oauth2/token', payload: { appKey: clientId, appSecret: clientSecret } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().access_token as string;
  }

  async function until(check: () => Promise<boolean>, ms = 3_000): Promise<void> {
    const t0 = Date.now();
    while (!(await check())) {
      if (Date.now() - t0 > ms) throw new Error('condition not met in time');
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  it('refuses a token of a rotated API client, and serves the new client', async () => {
    const creds = await t.merchants.add({ name: 'Rotates' });
    const old = await tokenFor(creds.clientId, creds.clientSecret);
    const get = (token: string) => t.app.inject({ method: 'GET', url: MISSING_ORDER, headers: { authorization: `Bearer ${token}` } });
    expect((await get(old)).statusCode).toBe(404);
    const rotated = await t.merchants.rotateApiSecret(creds.mid);
    await until(async () => (await get(old)).statusCode === 401);
    expect((await get(old)).json()).toMatchObject({ statusCode: 'ERR_AUTH_TOKEN_INVALID', message: expect.stringContaining('revoked') });
    expect((await get(await tokenFor(rotated.clientId, rotated.clientSecret))).statusCode).toBe(404);
    // Not a moment's glitch: the old token stays refused.
    await new Promise((r) => setTimeout(r, 250));
    expect((await get(old)).statusCode).toBe(401);
  });

  it('refuses a revoked tokenization key', async () => {
    const creds = await t.merchants.add({ name: 'Revokes key' });
    const tokenize = () => t.app.inject({ method: 'POST', url: `/v1/tokenize?mid=${creds.mid}&environment=${encodeURIComponent(creds.tokenizationKey)}`, payload: CARD });
    expect((await tokenize()).statusCode).toBe(200);
    const [m] = await t.tdb.database.db.select({ id: merchantRows.id }).from(merchantRows).where(eq(merchantRows.mid, creds.mid));
    await t.tdb.database.db.update(tokenizationKeys).set({ revokedAt: new Date() }).where(eq(tokenizationKeys.merchantId, m!.id));
    await until(async () => (await tokenize()).statusCode === 401);
    expect((await tokenize()).json()).toMatchObject({ errors: [expect.objectContaining({ field: 'environment', code: 'ERR_VAULT_INVALID_TOKENIZATION_KEY' })] });
  });
});
