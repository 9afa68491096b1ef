// What the abuse needs to reach every route's own checks: bearer tokens, a card token, CIT
// orders that are APPROVED (refund) or waiting for a CHALLENGE, an MIT order, the operator's
// console token, and a valid body for each route to cut, wrap or pollute.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { asMerchant, evaluateBody, SOFT } from '../../helpers/api.ts';
import type { Merchant, Stack } from './daemon.ts';
import { send, type RawResponse } from './http-client.ts';

export interface Fixtures {
  bearer: string;
  bearerB: string;
  cardToken: string;
  /** APPROVED CIT orders, one for each refund input that might refund by mistake. */
  approved: string[];
  challenge: string;
  mit: string;
  operator: string;
  tokenizePath: string;
  good: Record<string, () => unknown>;
}

const JSON_TYPE = { 'content-type': 'application/json' };

export async function post(s: Stack, path: string, body: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  return send(s.base, { method: 'POST', path, headers: { ...JSON_TYPE, ...headers }, body: JSON.stringify(body) });
}

async function bearerOf(s: Stack, m: Merchant): Promise<string> {
  const r = await post(s, '/oauth2/token', { appKey: m.clientId, appSecret: m.clientSecret });
  if (r.status !== 200) throw new Error(`no token: ${r.body}`);
  return `Bearer ${r.json!.access_token as string}`;
}

const card = (number: string) => ({ payment_method: { credit_card: { first_name: 'Jane', last_name: 'Doe', number, verification_value: '123', month: '12', year: '2035' } } });

async function tokenize(s: Stack, path: string, number: string): Promise<string> {
  const r = await post(s, path, card(number));
  if (r.status !== 200) throw new Error(`tokenize failed: ${r.body}`);
  return ((r.json!.transaction as Record<string, unknown>).payment_method as Record<string, string>).token!;
}

async function cit(s: Stack, bearer: string, token: string, expect: string): Promise<string> {
  const r = await post(s, '/v1/evaluate', asMerchant(evaluateBody(token, { tx: SOFT }), s.a), { authorization: bearer });
  if (r.json?.status !== expect) throw new Error(`evaluate answered ${r.body}, not ${expect}`);
  return r.json.orderSessionKey as string;
}

export async function makeFixtures(s: Stack, approvedCount: number): Promise<Fixtures> {
  const bearer = await bearerOf(s, s.a);
  const bearerB = await bearerOf(s, s.b);
  const tokenizePath = `/v1/tokenize?mid=${s.a.mid}&environment=${encodeURIComponent(s.a.tokenizationKey)}`;
  const cardToken = await tokenize(s, tokenizePath, '4111111111111111');
  const challengeToken = await tokenize(s, tokenizePath, '4000000000000101');
  const approved: string[] = [];
  for (let i = 0; i < approvedCount; i++) approved.push(await cit(s, bearer, cardToken, 'APPROVED'));
  const challenge = await cit(s, bearer, challengeToken, 'CHALLENGE');
  const mitRes = await post(s, '/v1/evaluate', asMerchant(evaluateBody(cardToken, { mit: true }), s.a), { authorization: bearer });
  if (mitRes.json?.status !== 'SUBMITTED') throw new Error(`MIT evaluate answered ${mitRes.body}`);
  const operator = readFileSync(join(s.dataDir, 'console-token'), 'utf8').trim();
  const own = { mid: s.a.mid, siteId: s.a.siteId };
  const good: Record<string, () => unknown> = {
    token: () => ({ appKey: s.a.clientId, appSecret: 'wrong-secret' }),
    tokenize: () => card('4111111111111111'),
    evaluate: () => asMerchant(evaluateBody(cardToken, { tx: SOFT }), own),
    transmit: () => ({ orderId: `T-${randomUUID()}`, transaction: { amount: 1000, currency: 'USD', timestampUtc: new Date().toISOString(), timezoneUtcOffset: 0, responseStatus: 'Approved' }, payer: { email: 'a@b.example' } }),
    key: () => ({ orderSessionKey: randomUUID() }),
    challenge: () => ({ cvv: '12x' }),
    refund: () => ({ amountToRefund: '-1' }),
    login: () => ({ token: 'not-the-operator-token' }),
  };
  return { bearer, bearerB, cardToken, approved, challenge, mit: mitRes.json.orderSessionKey as string, operator, tokenizePath, good };
}
