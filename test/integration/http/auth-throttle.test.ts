// Failed authentications are limited per (presented id, source address) and per source
// address, never per id alone: attackers on many addresses failing for one client (or one
// mid at tokenize) are each held off with 429 + Retry-After, and the real client, from an
// address with no failures, is not. The addresses and ids are generated from a seed
// (THROTTLE_SEED to replay one); the seed is in the test's name.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { DB_KINDS } from '../../helpers/db.ts';
import { testApp, type TestApp } from '../../helpers/app.ts';
import { registry } from '../../../src/metrics.ts';
import { sourceKey } from '../../../src/auth/source-address.ts';
import type { MerchantCredentials } from '../../../src/merchants/service.ts';

const CARD = { payment_method: { credit_card: { first_name: 'Jane', last_name: 'Doe', number: '4111111111111111', month: '12', year: '2035' } } };
const SEED = Number(process.env.THROTTLE_SEED ?? Date.now() % 100_000);
const PER_PAIR = 3;
const PER_ADDRESS = 8;
const ATTACKERS = 24;

/** mulberry32: the same addresses and ids for the same seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Source addresses whose throttle keys are all different and not in `taken`: IPv4 and IPv6 mixed. */
function addresses(rand: () => number, n: number, taken: Set<string>): string[] {
  const byte = () => Math.floor(rand() * 256);
  const group = () => Math.floor(rand() * 65_536).toString(16);
  const out: string[] = [];
  while (out.length < n) {
    const a = rand() < 0.5 ? `${1 + Math.floor(rand() * 222)}.${byte()}.${byte()}.${byte()}` : `2001:db8:${group()}:${group()}:${group()}::${group()}`;
    if (taken.has(sourceKey(a))) continue;
    taken.add(sourceKey(a));
    out.push(a);
  }
  return out;
}

describe.each(DB_KINDS)(`failed authentications are throttled per (id, address) and per address on %s, seed ${SEED}`, (kind) => {
  let t: TestApp;
  let x: MerchantCredentials;
  let y: MerchantCredentials;
  const rand = prng(SEED);
  const taken = new Set<string>([sourceKey('127.0.0.1')]);
  beforeAll(async () => {
    t = await testApp(kind, undefined, { authThrottle: { failuresPerClient: PER_PAIR, failuresPerAddress: PER_ADDRESS, failureWindowSeconds: 60 } });
    x = await t.merchants.add({ name: 'X' });
    y = await t.merchants.add({ name: 'Y' });
  });
  afterAll(async () => t?.close());

  const token = (clientId: string, secret: string, from: string) =>
    t.app.inject({ method: 'POST', url: '/oauth2/token', remoteAddress: from, payload: { appKey: clientId, appSecret: secret } });
  const tokenize = (mid: string, key: string, from: string) =>
    t.app.inject({ method: 'POST', url: `/v1/tokenize?mid=${mid}&environment=${encodeURIComponent(key)}`, remoteAddress: from, payload: CARD });
  const throttled = async (endpoint: string) => Number(new RegExp(`rescued_auth_throttled_total\\{endpoint="${endpoint}"\\} (\\d+)`).exec(await registry.metrics())?.[1] ?? 0);

  it('token: attackers on many addresses each fail past the limit; the real client from a fresh address gets its token', async () => {
    const before = await throttled('token');
    const attackers = addresses(rand, ATTACKERS, taken);
    for (const from of attackers) {
      for (let i = 0; i < PER_PAIR; i++) expect((await token(x.clientId, 'rcs_wrong', from)).statusCode).toBe(401);
      const refused = await token(x.clientId, 'rcs_wrong', from);
      expect(refused.statusCode, from).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(50);
      expect(refused.json()).toMatchObject({ error: 'temporarily_unavailable', statusCode: 'ERR_AUTH_TOO_MANY_FAILURES' });
    }
    // The real client, from an address that never failed, is not held off by any of it.
    const [fresh] = addresses(rand, 1, taken);
    expect((await token(x.clientId, x.clientSecret, fresh!)).statusCode).toBe(200);
    expect((await token(x.clientId, x.clientSecret, '127.0.0.1')).statusCode).toBe(200);
    // An address that failed is held off even with the right secret: guessing from it is pointless.
    for (const from of attackers) expect((await token(x.clientId, x.clientSecret, from)).statusCode).toBe(429);
    expect(await throttled('token')).toBe(before + 2 * ATTACKERS);
  });

  it('tokenize: attackers failing for a public mid are held off; the merchant\'s checkout from a fresh address tokenizes', async () => {
    const attackers = addresses(rand, ATTACKERS, taken);
    for (const from of attackers) {
      for (let i = 0; i < PER_PAIR; i++) expect((await tokenize(x.mid, 'rtk_wrong', from)).statusCode).toBe(401);
      const refused = await tokenize(x.mid, 'rtk_wrong', from);
      expect(refused.statusCode, from).toBe(429);
      expect(refused.headers['retry-after']).toMatch(/^\d+$/);
      expect(refused.json()).toMatchObject({ statusCode: 'ERR_AUTH_TOO_MANY_FAILURES' });
    }
    const [fresh] = addresses(rand, 1, taken);
    expect((await tokenize(x.mid, x.tokenizationKey, fresh!)).statusCode).toBe(200);
    expect((await tokenize(x.mid, x.tokenizationKey, attackers[0]!)).statusCode).toBe(429);
  });

  it('per address: failures across many generated client ids and mids add up to the address limit', async () => {
    const [from, elsewhere] = addresses(rand, 2, taken);
    // Each id fails once (under its own limit); both endpoints count towards the address.
    for (let i = 0; i < PER_ADDRESS; i++) {
      const res = i % 2 ? await tokenize(randomUUID(), 'rtk_wrong', from!) : await token(`rc_${Math.floor(rand() * 1e12).toString(16)}`, 'rcs_wrong', from!);
      expect(res.statusCode, `failure ${i}`).toBe(401);
    }
    expect((await token(`rc_${Math.floor(rand() * 1e12).toString(16)}`, 'rcs_wrong', from!)).statusCode).toBe(429);
    expect((await token(y.clientId, y.clientSecret, from!)).statusCode).toBe(429);
    expect((await tokenize(y.mid, y.tokenizationKey, from!)).statusCode).toBe(429);
    // Successes never count: Y authenticates from another address more often than any limit.
    for (let i = 0; i < PER_ADDRESS + 2; i++) expect((await token(y.clientId, y.clientSecret, elsewhere!)).statusCode).toBe(200);
  });

  it('an IPv6 source counts by its /64: a new address in the same /64 is held off, the next /64 is not', async () => {
    const prefix = `2001:db8:${Math.floor(rand() * 65_536).toString(16)}:7`;
    for (let i = 1; i <= PER_PAIR; i++) expect((await token(y.clientId, 'rcs_wrong', `${prefix}::${i}`)).statusCode).toBe(401);
    expect((await token(y.clientId, y.clientSecret, `${prefix}:1:2:3:4`)).statusCode).toBe(429);
    expect((await token(y.clientId, y.clientSecret, `${prefix.replace(/:7$/, ':8')}::1`)).statusCode).toBe(200);
  });
});
