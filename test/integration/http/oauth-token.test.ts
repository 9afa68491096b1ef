import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS } from '../../helpers/db.ts';
import { testApp, type TestApp } from '../../helpers/app.ts';
import type { MerchantCredentials } from '../../../src/merchants/service.ts';

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

describe.each(DB_KINDS)('POST /oauth2/token on %s', (kind) => {
  let t: TestApp;
  let a: MerchantCredentials;
  let b: MerchantCredentials;

  beforeAll(async () => {
    t = await testApp(kind, (app) => {
      // A merchant route as every later stage will declare one.
      app.get('/v1/test/whoami', { preHandler: app.requireMerchant }, async (request) => request.merchant);
    });
    a = await t.merchants.add({ name: 'Merchant A' });
    b = await t.merchants.add({ name: 'Merchant B' });
  });
  afterAll(() => t.close());

  async function expectToken(res: { statusCode: number; headers: Record<string, unknown>; json: () => Record<string, unknown> }, mid: string) {
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 600 });
    expect(body.accessToken).toBe(body.access_token);
    expect(body.expires).toBeGreaterThan(Date.now() + 590_000);
    const who = await t.app.inject({ method: 'GET', url: '/v1/test/whoami', headers: { authorization: `Bearer ${body.access_token}` } });
    expect(who.json()).toMatchObject({ mid });
  }

  it('issues a token for HTTP Basic with a form body', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { authorization: basic(a.clientId, a.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=client_credentials',
    });
    await expectToken(res, a.mid);
  });

  it('issues a token for body credentials in a form and in JSON', async () => {
    const form = await t.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ grant_type: 'client_credentials', client_id: a.clientId, client_secret: a.clientSecret }).toString(),
    });
    await expectToken(form, a.mid);
    const json = await t.app.inject({ method: 'POST', url: '/oauth2/token', payload: { grant_type: 'client_credentials', client_id: b.clientId, client_secret: b.clientSecret } });
    await expectToken(json, b.mid);
  });

  it('issues a token for {appKey, appSecret} at /v1/oauth2/token and with doubled slashes', async () => {
    await expectToken(await t.app.inject({ method: 'POST', url: '/v1/oauth2/token', payload: { appKey: a.clientId, appSecret: a.clientSecret } }), a.mid);
    await expectToken(await t.app.inject({ method: 'POST', url: '//v1//oauth2/token', payload: { appKey: a.clientId, appSecret: a.clientSecret } }), a.mid);
  });

  it('answers a wrong secret with 401 invalid_client and WWW-Authenticate', async () => {
    for (const req of [
      { headers: { authorization: basic(a.clientId, 'wrong') }, payload: { grant_type: 'client_credentials' } },
      { payload: { appKey: a.clientId, appSecret: b.clientSecret } },
      { payload: { appKey: 'rc_unknown', appSecret: 'x' } },
    ]) {
      const res = await t.app.inject({ method: 'POST', url: '/oauth2/token', ...req });
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Basic realm="rescued"/);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.json()).toMatchObject({ error: 'invalid_client', success: false, result: 'Failed', statusCode: 'ERR_AUTH_INVALID_CLIENT' });
    }
  });

  it('answers RFC 6749 errors for a missing or unsupported grant type and a malformed body', async () => {
    const missing = await t.app.inject({ method: 'POST', url: '/oauth2/token', payload: { client_id: a.clientId, client_secret: a.clientSecret } });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ error: 'invalid_request' });
    const grant = await t.app.inject({ method: 'POST', url: '/oauth2/token', payload: { grant_type: 'password', client_id: a.clientId, client_secret: a.clientSecret } });
    expect(grant.statusCode).toBe(400);
    expect(grant.json()).toMatchObject({ error: 'unsupported_grant_type' });
    const bad = await t.app.inject({ method: 'POST', url: '/oauth2/token', headers: { 'content-type': 'application/json' }, payload: '{"grant_type":' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ statusCode: 'ERR_HTTP_BODY_INVALID' });
  });

  it('refuses tokens of a disabled merchant and new tokens for it', async () => {
    const c = await t.merchants.add({ name: 'Merchant C' });
    const { access_token } = (await t.app.inject({ method: 'POST', url: '/oauth2/token', payload: { appKey: c.clientId, appSecret: c.clientSecret } })).json();
    await t.merchants.disable(c.mid);
    const res = await t.app.inject({ method: 'POST', url: '/oauth2/token', payload: { appKey: c.clientId, appSecret: c.clientSecret } });
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toBe('invalid_client');
    const who = await t.app.inject({ method: 'GET', url: '/v1/test/whoami', headers: { authorization: `Bearer ${access_token}` } });
    expect(who.statusCode).toBe(401);
    expect(who.json().statusCode).toBe('ERR_AUTH_TOKEN_INVALID');
  });

  it('never lets a rotated-out API client obtain a token', async () => {
    const d = await t.merchants.add({ name: 'Merchant D' });
    const fresh = await t.merchants.rotateApiSecret(d.mid);
    const old = await t.app.inject({ method: 'POST', url: '/oauth2/token', payload: { appKey: d.clientId, appSecret: d.clientSecret } });
    expect(old.statusCode).toBe(401);
    await expectToken(await t.app.inject({ method: 'POST', url: '/oauth2/token', payload: { appKey: fresh.clientId, appSecret: fresh.clientSecret } }), d.mid);
  });
});

describe.each(DB_KINDS)('bearer authentication (RFC 6750) on %s', (kind) => {
  let t: TestApp;
  let a: MerchantCredentials;
  beforeAll(async () => {
    t = await testApp(kind, (app) => {
      app.get('/v1/test/whoami', { preHandler: app.requireMerchant }, async (request) => request.merchant);
    });
    a = await t.merchants.add({ name: 'Merchant A' });
  });
  afterAll(() => t.close());

  it('answers a missing token with 401 and a bare Bearer challenge', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/test/whoami' });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="rescued"');
    expect(res.json()).toMatchObject({ success: false, result: 'Failed', status: null, statusCode: 'ERR_AUTH_TOKEN_MISSING', errors: [] });
  });

  it('answers an invalid token with error="invalid_token"', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/test/whoami', headers: { authorization: 'Bearer abc.def.ghi' } });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="rescued", error="invalid_token"/);
    expect(res.json().statusCode).toBe('ERR_AUTH_TOKEN_INVALID');
  });

  it('accepts a valid token', async () => {
    const { access_token } = (await t.app.inject({ method: 'POST', url: '/oauth2/token', payload: { appKey: a.clientId, appSecret: a.clientSecret } })).json();
    const res = await t.app.inject({ method: 'GET', url: '/v1/test/whoami', headers: { authorization: `Bearer ${access_token}` } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ mid: a.mid, clientId: a.clientId, merchantId: expect.any(String) });
  });

  it('answers 503 while draining', async () => {
    t.draining.value = true;
    const res = await t.app.inject({ method: 'GET', url: '/healthz' });
    t.draining.value = false;
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json().statusCode).toBe('ERR_HTTP_DRAINING');
  });

  it('reports readiness from the database', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ready' });
  });

  it('answers unknown routes with the common error body', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/nope?environment=secret' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ success: false, result: 'Failed', status: null, statusCode: 'ERR_HTTP_NOT_FOUND', message: 'No route for GET /v1/nope.', errors: [] });
  });
});
