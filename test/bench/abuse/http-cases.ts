// The HTTP inputs: each category's bodies on every POST route, query and path abuse on the GET
// routes, header abuse everywhere, and refunds of APPROVED orders with bodies of the wrong
// shape (the one route where a body wrongly taken for valid would move money).
import type { Fixtures } from './fixtures.ts';
import type { RawRequest } from './http-client.ts';
import { encodings, huge, lyingLength, malformed, nested, polluting, pollutingForms, PROTOTYPE_NAMES, TOP_LEVEL_WRONG, truncated, UNSUPPORTED, type Body } from './http-bodies.ts';
import { getCases, GET_ROUTES, postRoutes, wrongTypeBodies, type Auth, type PostRoute } from './http-routes.ts';
import type { Accept } from './verdict.ts';

export interface HttpCase {
  label: string;
  input: string;
  request: RawRequest;
  accepts: Accept[];
  /** A refund input: the order whose refunded amount must stay 0. */
  refundOf?: string;
}

const BODY_INVALID: Accept[] = [{ status: 400, code: 'ERR_HTTP_BODY_INVALID' }];
const UNSUPPORTED_TYPE: Accept[] = [{ status: 415, code: 'ERR_HTTP_UNSUPPORTED_MEDIA_TYPE' }];
const TOO_LARGE: Accept[] = [{ status: 413, code: 'ERR_HTTP_BODY_TOO_LARGE' }];
/** Node's HTTP parser refuses the request before the app sees it: 400 or 431, no error body. */
const PARSER = (status: number): Accept[] => [{ status }];

function authHeaders(auth: Auth, f: Fixtures): Record<string, string> {
  if (auth === 'bearer') return { authorization: f.bearer };
  if (auth === 'operator') return { authorization: `Bearer ${f.operator}` };
  return {};
}

function bodyCase(label: string, route: PostRoute, f: Fixtures, body: Body, accepts: Accept[]): HttpCase {
  const headers = { 'content-type': body.contentType ?? 'application/json', ...authHeaders(route.auth, f), ...body.headers };
  return { label, input: `POST ${short(route.path)}: ${body.name}`, request: { method: 'POST', path: route.path, headers, body: body.bytes, endEarly: body.endEarly }, accepts };
}

const short = (path: string) => path.replace(/\?.*/, '?…').replace(/[0-9a-f]{8}-[0-9a-f-]{27}/, '{key}');

function postCases(f: Fixtures, bodyLimit: number): HttpCase[] {
  const out: HttpCase[] = [];
  for (const route of postRoutes(f)) {
    const good = f.good[route.good]!();
    const add = (label: string, bodies: Body[], accepts: (b: Body) => Accept[]) => {
      for (const body of bodies) out.push(bodyCase(label, route, f, body, accepts(body)));
    };
    add('HTTP · malformed JSON', malformed(), () => BODY_INVALID);
    add('HTTP · truncated body', truncated(good), () => BODY_INVALID);
    // Closed mid-body: nothing to answer, or 400 if the server saw the end first.
    add('HTTP · truncated body', [lyingLength(good)], () => [{ status: 0 }, ...PARSER(400), ...BODY_INVALID]);
    add('HTTP · huge body', huge(bodyLimit), () => TOO_LARGE);
    add('HTTP · deeply nested JSON', nested(), () => BODY_INVALID);
    add('HTTP · wrong encoding', encodings(good), (b) => (UNSUPPORTED.has(b.contentType ?? '') ? UNSUPPORTED_TYPE : BODY_INVALID));
    add('HTTP · prototype pollution', polluting(good), () => BODY_INVALID);
    if (route.form) add('HTTP · prototype pollution', pollutingForms(route.form), () => route.wrongTypes);
    add('HTTP · wrong types', [...TOP_LEVEL_WRONG, ...wrongTypeBodies(route.good).map((t) => ({ name: t.length > 70 ? `${t.slice(0, 70)}…` : t, bytes: Buffer.from(t) }))], () => route.wrongTypes);
    add('HTTP · unknown fields', [{ name: 'only Object.prototype member names', bytes: Buffer.from(`{${PROTOTYPE_NAMES}}`) }], () => route.unknownFields);
    out.push(...headerCases(route.path, route.auth, f, 'POST', JSON.stringify(good)));
  }
  return out;
}

/** Refunds of APPROVED orders with a body that is not an object: 400, and nothing refunded. */
function refundCases(f: Fixtures): HttpCase[] {
  const bodies = [...TOP_LEVEL_WRONG, { name: '{"amount":"12"}', bytes: Buffer.from('{"amount":"12"}') }];
  return bodies.map((body, i) => {
    const key = f.approved[i]!;
    return { label: 'HTTP · wrong types', input: `POST /v1/orders/{APPROVED key}/refund: ${body.name}`, request: { method: 'POST', path: `/v1/orders/${key}/refund`, headers: { 'content-type': 'application/json', authorization: f.bearer }, body: body.bytes }, accepts: [{ status: 400, code: 'ERR_MODEL_INVALID' }], refundOf: key };
  });
}

export const REFUND_CASES = TOP_LEVEL_WRONG.length + 1;

/** Header abuse on one route: oversized, smuggling, control characters, and every kind of bad credential. */
function headerCases(path: string, auth: Auth, f: Fixtures, method: 'GET' | 'POST', body?: string): HttpCase[] {
  const label = 'HTTP · header abuse';
  const base: Record<string, string> = { ...(body !== undefined ? { 'content-type': 'application/json' } : {}) };
  const req = (headers: Record<string, string>, extra: Partial<RawRequest> = {}): RawRequest => ({ method, path, headers: { ...base, ...headers }, body, ...extra });
  const c = (name: string, request: RawRequest, accepts: Accept[]): HttpCase => ({ label, input: `${method} ${short(path)}: ${name}`, request, accepts });
  const out = [
    c('a 20 KB header', req({ ...authHeaders(auth, f), 'x-abuse': 'a'.repeat(20_000) }), PARSER(431)),
    c('Content-Length and Transfer-Encoding both', req({ ...authHeaders(auth, f), 'transfer-encoding': 'chunked', 'content-length': '5' }), PARSER(400)),
    c('a control character in a header value', req({ ...authHeaders(auth, f), 'x-abuse': 'a\u0001b' }), PARSER(400)),
    c('a space in a header name', req({ ...authHeaders(auth, f), 'x abuse': '1' }), PARSER(400)),
  ];
  if (auth === 'bearer' || auth === 'operator') {
    const missing = auth === 'bearer' ? 'ERR_AUTH_TOKEN_MISSING' : 'ERR_CONSOLE_UNAUTHORIZED';
    const invalid = auth === 'bearer' ? 'ERR_AUTH_TOKEN_INVALID' : 'ERR_CONSOLE_UNAUTHORIZED';
    // A console page sends a browser without credentials to the sign-in page instead.
    const page = auth === 'operator' && !path.startsWith('/console/api/') ? [{ status: 303 }] : [];
    const [h, p, s] = f.bearer.slice(7).split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ sub: 'rc_other', mid: '00000000-0000-4000-8000-000000000000', exp: 9_999_999_999, iat: 1 })).toString('base64url')}.${s}`;
    const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${p}.`;
    out.push(
      c('no Authorization', req({}), [{ status: 401, code: missing }, ...page]),
      c('Basic credentials', req({ authorization: 'Basic dXNlcjpwYXNz' }), [{ status: 401, code: missing }, ...page]),
      c('"Bearer" and nothing', req({ authorization: 'Bearer' }), [{ status: 401, code: missing }, ...page]),
      c('Bearer garbage', req({ authorization: 'Bearer garbage' }), [{ status: 401, code: invalid }, ...page]),
      c('a token with alg none', req({ authorization: `Bearer ${none}` }), [{ status: 401, code: invalid }, ...page]),
      c('a token with a forged payload', req({ authorization: `Bearer ${forged}` }), [{ status: 401, code: invalid }, ...page]),
      c('an 8 KB token', req({ authorization: `Bearer ${'A'.repeat(8000)}` }), [{ status: 401, code: invalid }, ...page]),
      c('a token with a NUL escape and spaces', req({ authorization: `Bearer ${f.bearer.slice(7, 20)} %00 ${f.bearer.slice(20)}` }), [{ status: 401, code: missing }, { status: 401, code: invalid }, ...page]),
    );
    if (auth === 'operator') out.push(c("a merchant's bearer token", req({ authorization: f.bearer }), [{ status: 401, code: invalid }, ...page]));
  }
  if (auth === 'tokenize') {
    const bad = { status: 401, code: 'ERR_VAULT_INVALID_TOKENIZATION_KEY' };
    const q = (query: string) => path.replace(/\?.*/, `?${query}`);
    for (const query of ['', 'mid=__proto__&environment=constructor', `mid=${f.tokenizePath.match(/mid=([^&]+)/)![1]}&environment=rtk_wrong`, 'mid[]=a&environment[]=b', `mid=x&mid=y&environment=${'k'.repeat(5000)}`]) {
      out.push(c(`query "${query.slice(0, 50)}"`, { ...req({}), path: q(query) }, [bad]));
    }
  }
  return out;
}

export function httpCases(f: Fixtures, bodyLimit: number): HttpCase[] {
  const out = [...postCases(f, bodyLimit), ...refundCases(f)];
  for (const [category, cases] of Object.entries(getCases())) {
    for (const g of cases) out.push({ label: `HTTP · ${category}`, input: `GET ${g.name}`, request: { method: 'GET', path: g.path, headers: authHeaders(g.auth, f) }, accepts: g.accepts });
  }
  for (const [path, auth] of GET_ROUTES) out.push(...headerCases(path, auth, f, 'GET'));
  const methods: Array<[string, string]> = [['DELETE', '/v1/evaluate'], ['PUT', '/v1/orders'], ['PATCH', '/oauth2/token'], ['GET', '/v1/transmit']];
  for (const [method, path] of methods) out.push({ label: 'HTTP · header abuse', input: `${method} ${path}: a method the path does not take`, request: { method, path, headers: { authorization: f.bearer } }, accepts: [{ status: 405, code: 'ERR_HTTP_METHOD_NOT_ALLOWED' }] });
  out.push({ label: 'HTTP · header abuse', input: 'a request line of garbage', request: { method: '', path: '', raw: Buffer.from('\u0000\u0001GARBAGE\r\n\r\n') }, accepts: PARSER(400) });
  out.push({ label: 'HTTP · header abuse', input: 'a 20 KB URL', request: { method: 'GET', path: `/v1/orders?orderId=${'o'.repeat(20_000)}`, headers: { authorization: f.bearer } }, accepts: PARSER(431) });
  return out;
}
