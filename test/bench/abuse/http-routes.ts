// Every route of the side-port with how it is called and what it must answer to a body of
// the wrong shape or of unknown fields. Keys in paths are fixtures (an order waiting for a
// challenge) or random UUIDs (cancel and refund, so a body wrongly taken for valid cannot
// change an order; refunds of APPROVED orders have their own cases in http-cases.ts).
import { randomUUID } from 'node:crypto';
import type { Fixtures } from './fixtures.ts';
import type { Accept } from './verdict.ts';

export type Auth = 'bearer' | 'none' | 'operator' | 'tokenize';

export interface PostRoute {
  path: string;
  auth: Auth;
  good: string;
  /** The answers to a valid JSON object of wrong types or of unknown fields only. */
  wrongTypes: Accept[];
  unknownFields: Accept[];
  /** The route reads forms too: the fields a form needs. */
  form?: string;
  console?: true;
}

const model: Accept[] = [{ status: 400, code: 'ERR_MODEL_INVALID' }];
const notFound: Accept[] = [{ status: 404, code: 'ERR_HTTP_NOT_FOUND' }];
const clientRefused: Accept[] = [{ status: 401, code: 'ERR_AUTH_INVALID_CLIENT' }, { status: 400, code: 'ERR_AUTH_INVALID_REQUEST' }, { status: 400, code: 'ERR_AUTH_UNSUPPORTED_GRANT_TYPE' }];
const cardRefused: Accept[] = [{ status: 422, code: 'ERR_VAULT_CARD_INVALID' }];
/** The sign-in page: 401, or 429 once the address has failed ten times in a minute. */
const signInRefused: Accept[] = [{ status: 401 }, { status: 429 }];

export function postRoutes(f: Fixtures): PostRoute[] {
  const tokenizeShort = f.tokenizePath.replace('/v1/tokenize', '/tokenize');
  const token = { auth: 'none' as const, good: 'token', wrongTypes: clientRefused, unknownFields: clientRefused, form: 'grant_type=client_credentials&client_id=rc_x&client_secret=y' };
  const tokenize = { auth: 'tokenize' as const, good: 'tokenize', wrongTypes: cardRefused, unknownFields: cardRefused };
  const bearer = (path: string, good: string, wrongTypes: Accept[], unknownFields: Accept[]): PostRoute => ({ path, auth: 'bearer', good, wrongTypes, unknownFields });
  return [
    { path: '/oauth2/token', ...token },
    { path: '/v1/oauth2/token', ...token },
    { path: f.tokenizePath, ...tokenize },
    { path: tokenizeShort, ...tokenize },
    bearer('/v1/evaluate', 'evaluate', model, model),
    bearer('/evaluate', 'evaluate', model, model),
    bearer('/v1/transmit', 'transmit', model, model),
    bearer('/transmit', 'transmit', model, model),
    bearer('/v1/outcome', 'key', model, model),
    bearer('/outcome', 'key', model, model),
    bearer(`/v1/orders/${f.challenge}/challenge`, 'challenge', model, model),
    bearer(`/v1/orders/${randomUUID()}/refund`, 'refund', model, notFound),
    bearer('/v1/refund', 'refund', model, model),
    bearer('/refund', 'refund', model, model),
    bearer(`/v1/orders/${randomUUID()}/cancel`, 'key', notFound, notFound),
    bearer('/v1/cancel', 'key', model, model),
    bearer('/cancel', 'key', model, model),
    { path: '/console/login', auth: 'none', good: 'login', wrongTypes: signInRefused, unknownFields: signInRefused, form: 'token=not-the-token', console: true },
  ];
}

/** Valid JSON objects of the wrong types for each route's fields. */
export function wrongTypeBodies(good: string): string[] {
  const key = (v: string) => `{"orderSessionKey":${v}}`;
  switch (good) {
    case 'token': return ['{"appKey":1,"appSecret":2}', '{"appKey":["a"],"appSecret":{}}', '{"grant_type":["client_credentials"],"client_id":{},"client_secret":[]}', '{"grant_type":1}'];
    case 'tokenize': return ['{"payment_method":[]}', '{"payment_method":{"credit_card":"4111111111111111"}}', '{"payment_method":{"credit_card":{"number":4111111111111111,"month":{},"year":[2035]}}}'];
    case 'evaluate': return ['{"isDeclined":"yes","orderId":7,"mid":[],"transaction":"t","paymentMethod":5,"payer":false}', '{"transaction":{"amount":"lots","currency":978,"timestampUtc":true}}', '{"isMIT":"true","sequenceNumber":{}}'];
    case 'transmit': return ['{"orderId":{"a":1},"transaction":[],"payer":"x"}', '{"orderId":["T-1"],"transaction":{"amount":1},"payer":{"email":"a@b.example"}}', '{"orderId":"T-1","transaction":"1000 USD","payer":{"email":"a@b.example"}}'];
    case 'key': return [key('5'), key('[]'), key('{}'), key('true'), '{"OrderSessionKey":null}'];
    case 'challenge': return ['{"cvv":123}', '{"cvv":{"a":1},"threeDSecure":"x"}', '{"threeDSecure":[1]}', '{"verificationValue":true}'];
    case 'refund': return [`{"orderSessionKey":"${randomUUID()}","amount":"12"}`, `{"orderSessionKey":"${randomUUID()}","amountToRefund":[1]}`, `{"orderSessionKey":"${randomUUID()}","amount":1.5}`, `{"orderSessionKey":"${randomUUID()}","idempotencyKey":{}}`];
    case 'login': return ['{"token":123}', '{"token":["x"]}', '{"token":{}}'];
    default: throw new Error(`no wrong types for ${good}`);
  }
}

export interface GetCase {
  path: string;
  auth: Auth;
  name: string;
  accepts: Accept[];
}

const ignoredOr = (...more: Accept[]): Accept[] => [{ status: 200, ignored: true }, ...more];

/** GET routes: parameters of the wrong type, polluting and unknown names, odd path segments. */
export function getCases(): Record<string, GetCase[]> {
  const g = (path: string, name: string, accepts: Accept[], auth: Auth = 'bearer'): GetCase => ({ path, auth, name, accepts });
  const badQuery: Accept[] = [{ status: 400, code: 'ERR_MODEL_INVALID' }];
  const reportQuery: Accept[] = [{ status: 400, code: 'ERR_REPORT_INVALID_QUERY' }];
  const pollute = (path: string, auth: Auth = 'bearer', ...more: Accept[]) => [
    g(`${path}?__proto__[polluted_canary]=yes`, `${path}?__proto__[key]=…`, ignoredOr(...more), auth),
    g(`${path}?constructor[prototype][polluted_canary]=yes`, `${path}?constructor[prototype][key]=…`, ignoredOr(...more), auth),
    g(`${path}?__proto__=x&constructor=y&prototype=z`, `${path}?__proto__=x&constructor=y&prototype=z`, ignoredOr(...more), auth),
  ];
  const unknown = (path: string, auth: Auth = 'bearer', ...more: Accept[]) => [
    g(`${path}?toString=1&valueOf=2&hasOwnProperty=3&__defineGetter__=4`, `${path}?toString=1&valueOf=2&…`, ignoredOr(...more), auth),
  ];
  const pageNotFound: Accept[] = [{ status: 404, code: 'ERR_HTTP_NOT_FOUND' }];
  const orderKeys = ['__proto__', 'constructor', 'toString', '%00', '..%2f..%2fetc%2fpasswd', '%FF%FE', 'x'.repeat(5000), `${randomUUID()}%00`];
  return {
    'wrong types': [
      ...['limit=abc', 'limit=-1', 'limit=1e999', 'limit=0', 'limit=501', 'status=NOPE', 'since=yesterday', 'batchId=not-a-uuid'].map((q) => g(`/v1/orders?${q}`, `/v1/orders?${q}`, badQuery)),
      // Brackets mean nothing to the query parser: `orderId[]` is a parameter of its own, unknown, so ignored.
      g('/v1/orders?orderId[]=a', '/v1/orders?orderId[]=a', ignoredOr()),
      g('/v1/orders?cursor=garbage', '/v1/orders?cursor=garbage', [{ status: 400, code: 'ERR_API_BAD_CURSOR' }]),
      ...['limit=abc', 'limit=-5', 'limit=9999999999999999999'].map((q) => g(`/v1/batches?${q}`, `/v1/batches?${q}`, badQuery)),
      g('/v1/batches?cursor=__proto__', '/v1/batches?cursor=__proto__', [{ status: 400, code: 'ERR_API_BAD_CURSOR' }]),
      ...['since=constructor', 'since=-1h', 'since=99999999999-01-01', 'since=1e309d'].map((q) => g(`/v1/reports/recovery?${q}`, `/v1/reports/recovery?${q}`, reportQuery)),
      g('/console/api/report.json?since=__proto__', '/console/api/report.json?since=__proto__', reportQuery, 'operator'),
      // The order search form: without a key it sends the operator back to the overview.
      g('/console/orders?status=toString&limit=abc', '/console/orders?status=toString&limit=abc', [{ status: 303 }], 'operator'),
    ],
    'path segments': [
      ...orderKeys.map((k) => g(`/v1/orders/${k}`, `/v1/orders/${k.length > 60 ? `${k.slice(0, 8)}… (${k.length} chars)` : k}`, pageNotFound)),
      ...['__proto__', 'constructor', '%00'].map((k) => g(`/v1/batches/${k}`, `/v1/batches/${k}`, pageNotFound)),
      ...['__proto__', 'constructor', 'hasOwnProperty', '..%2f..%2fpackage.json', '%2e%2e%2fconsole.js'].map((k) => g(`/console/assets/${k}`, `/console/assets/${k}`, pageNotFound, 'none')),
      ...['__proto__', 'constructor', '%00'].map((k) => g(`/console/orders/${k}`, `/console/orders/${k}`, pageNotFound, 'operator')),
    ],
    'prototype pollution': [
      ...pollute('/v1/orders'), ...pollute('/v1/batches'), ...pollute('/v1/reports/recovery'),
      ...pollute('/console', 'operator'), ...pollute('/console/api/report.json', 'operator'), ...pollute('/console/orders', 'operator', { status: 303 }),
      ...pollute('/metrics', 'none'), ...pollute('/healthz', 'none'), ...pollute('/openapi.json', 'none'),
    ],
    'unknown fields': [...unknown('/v1/orders'), ...unknown('/v1/batches'), ...unknown('/v1/reports/recovery'), ...unknown('/console', 'operator'), ...unknown('/readyz', 'none')],
  };
}

/** Every GET path the header abuse goes to, with its authentication. */
export const GET_ROUTES: Array<[string, Auth]> = [
  ['/v1/orders', 'bearer'], ['/v1/batches', 'bearer'], ['/v1/reports/recovery', 'bearer'], ['/console', 'operator'], ['/console/api/report.json', 'operator'],
  ['/console/api/live.json', 'operator'], ['/console/orders', 'operator'], ['/metrics', 'none'], ['/healthz', 'none'], ['/readyz', 'none'], ['/openapi.json', 'none'], ['/docs', 'none'],
];
