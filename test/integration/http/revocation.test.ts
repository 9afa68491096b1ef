// Revocation that revokes: a token issued to an API client stops working once that client is
// rotated away (within the status cache's bound), and so does a tokenization key rotated away
// with `merchant rotate-tokenization-key` (at once, or once its --keep-old-for has passed).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DB_KINDS } from '../../helpers/db.ts';
import { testApp, type TestApp } from '../../helpers/app.ts';
import { runCli } from '../../helpers/cli.ts';
import { waitFor } from '../../helpers/wait.ts';

const CARD = { payment_method: { credit_card: { first_name: 'Jane', last_name: 'Doe', number: '4111111111111111', month: '12', year: '2035' } } };
const MISSING_ORDER = '/v1/orders/00000000-0000-4000-8000-000000000000';
/** The daemon remembers a good tokenization key for 5 s; here 200 ms, waited for below. */
const KEY_CACHE_MS = 200;

describe.each(DB_KINDS)('revocation on %s', (kind) => {
  let t: TestApp;
  // The CLI's configuration (sandbox, generated secrets) lives in a data folder of its own.
  const dataDir = mkdtempSync(join(tmpdir(), 'rescued-revocation-'));
  const env: NodeJS.ProcessEnv = { RESCUED_DATA_DIR: dataDir };
  beforeAll(async () => {
    // The daemon caches a client's status for 5 s; here 200 ms, waited for below.
    t = await testApp(kind, undefined, { activeCacheMs: 200, keyCacheMs: KEY_CACHE_MS });
    if (t.tdb.url) env.DATABASE_URL = t.tdb.url;
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function tokenFor(clientId: string, clientSecret: string): Promise<string> {
    const res = await t.app.inject({ method: 'POST', url: '/oauth2/token', payload: { appKey: clientId, appSecret: clientSecret } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().access_token as string;
  }

  it('refuses a token of a rotated API client, and serves the new client', async () => {
    const creds = await t.merchants.add({ name: 'Rotates' });
    const old = await tokenFor(creds.clientId, creds.clientSecret);
    const get = (token: string) => t.app.inject({ method: 'GET', url: MISSING_ORDER, headers: { authorization: `Bearer ${token}` } });
    expect((await get(old)).statusCode).toBe(404);
    const rotated = await t.merchants.rotateApiSecret(creds.mid);
    await waitFor(async () => (await get(old)).statusCode === 401, { what: 'the old token refused' });
    expect((await get(old)).json()).toMatchObject({ statusCode: 'ERR_AUTH_TOKEN_INVALID', message: expect.stringContaining('revoked') });
    expect((await get(await tokenFor(rotated.clientId, rotated.clientSecret))).statusCode).toBe(404);
    // Not a moment's glitch: the old token stays refused. The scenario lets the status cache
    // (200 ms) run out once more; the pause is that clock's, not a wait for the code.
    await new Promise((r) => setTimeout(r, 250));
    expect((await get(old)).statusCode).toBe(401);
  });

  // Tokenization keys are rotated by the operator's command, run in-process on the app's own
  // database (as the CLI beside a daemon would be).
  const run = (...args: string[]) => runCli(args, env, t.tdb.database);
  const tokenize = (mid: string, key: string) =>
    t.app.inject({ method: 'POST', url: `/v1/tokenize?mid=${mid}&environment=${encodeURIComponent(key)}`, payload: CARD });
  async function addMerchant(name: string): Promise<{ mid: string; tokenizationKey: string }> {
    const res = await run('merchant', 'add', '--name', name, '--json');
    expect(res.status, res.stderr).toBe(0);
    return JSON.parse(res.stdout) as { mid: string; tokenizationKey: string };
  }
  async function rotate(mid: string, ...opts: string[]): Promise<{ tokenizationKey: string; previousKeys: { createdAt: string; validUntil: string }[] }> {
    const res = await run('merchant', 'rotate-tokenization-key', mid, ...opts, '--json');
    expect(res.status, res.stderr).toBe(0);
    return JSON.parse(res.stdout);
  }

  it('merchant rotate-tokenization-key: the old key is refused within the key cache, the new one tokenizes', async () => {
    const m = await addMerchant('Rotates key');
    expect((await tokenize(m.mid, m.tokenizationKey)).statusCode).toBe(200); // now in the app's key cache
    const res = await run('merchant', 'rotate-tokenization-key', m.mid);
    expect(res.status, res.stderr).toBe(0);
    const fresh = /^tokenization key: (rtk_\S+)$/m.exec(res.stdout)?.[1];
    expect(fresh).toBeDefined();
    expect(res.stdout).toContain('The previous key: revoked');
    expect(res.stdout + res.stderr).not.toContain(m.tokenizationKey);
    const rotatedAt = Date.now();
    await waitFor(async () => (await tokenize(m.mid, m.tokenizationKey)).statusCode === 401, { what: 'the old key refused', timeoutMs: KEY_CACHE_MS + 2_000 });
    expect(Date.now() - rotatedAt).toBeLessThan(KEY_CACHE_MS + 2_000);
    expect((await tokenize(m.mid, m.tokenizationKey)).json()).toMatchObject({ statusCode: 'ERR_VAULT_INVALID_TOKENIZATION_KEY', errors: [expect.objectContaining({ field: 'environment', code: 'ERR_VAULT_INVALID_TOKENIZATION_KEY' })] });
    expect((await tokenize(m.mid, fresh!)).statusCode).toBe(200);
    const shown = JSON.parse((await run('merchant', 'show', m.mid)).stdout) as { tokenizationKeys: unknown[] };
    expect(shown.tokenizationKeys).toEqual([{ createdAt: expect.any(String), validUntil: null }]);
  });

  it('--keep-old-for keeps the old key working until then; a later rotation only shortens that', async () => {
    const m = await addMerchant('Keeps key');
    const day = await rotate(m.mid, '--keep-old-for', '24h');
    expect(day.previousKeys).toHaveLength(1);
    expect(Math.abs(Date.parse(day.previousKeys[0]!.validUntil) - (Date.now() + 86_400_000))).toBeLessThan(60_000);
    expect((await tokenize(m.mid, m.tokenizationKey)).statusCode).toBe(200);
    expect((await tokenize(m.mid, day.tokenizationKey)).statusCode).toBe(200);
    const shown = JSON.parse((await run('merchant', 'show', m.mid)).stdout) as { tokenizationKeys: { validUntil: string | null }[] };
    expect(shown.tokenizationKeys.map((k) => k.validUntil)).toEqual([day.previousKeys[0]!.validUntil, null]);

    // Both older keys now end one second from now: the 24 h grace is cut, never lengthened.
    const second = await rotate(m.mid, '--keep-old-for', '1s');
    expect(second.previousKeys).toHaveLength(2);
    const until1s = Math.max(...second.previousKeys.map((k) => Date.parse(k.validUntil)));
    expect(until1s - Date.now()).toBeLessThan(1_500);
    const older = [m.tokenizationKey, day.tokenizationKey];
    await waitFor(async () => (await Promise.all(older.map((k) => tokenize(m.mid, k)))).every((r) => r.statusCode === 401), { what: 'both older keys refused', timeoutMs: 1_000 + KEY_CACHE_MS + 2_000 });
    // Refused only once the grace ended (the database's clock and this one are the same host's).
    expect(Date.now()).toBeGreaterThanOrEqual(until1s - 50);
    expect((await tokenize(m.mid, second.tokenizationKey)).statusCode).toBe(200);
  });

  it('refuses a --keep-old-for that is not a duration or is over 30 days, and an unknown mid', async () => {
    const m = await addMerchant('Bad rotations');
    for (const bad of ['soon', '31d', '-1h']) {
      const res = await run('merchant', 'rotate-tokenization-key', m.mid, '--keep-old-for', bad);
      expect(res.status).toBe(1);
      expect(res.stderr).toContain('--keep-old-for');
    }
    const unknown = await run('merchant', 'rotate-tokenization-key', '00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('No merchant with mid');
    // Nothing was rotated: the first key still works.
    expect((await tokenize(m.mid, m.tokenizationKey)).statusCode).toBe(200);
  });
});
