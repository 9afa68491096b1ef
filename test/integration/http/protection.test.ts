// Protection and operations of the side-port, on each database: the per-merchant rate limit
// (429 with Retry-After, one bucket across instances), the body size limit, unsupported media
// types, draining, /metrics, and the OpenAPI document checked by a published validator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { DB_KINDS } from '../../helpers/db.ts';
import { apiFixture, evaluateBody, SOFT, type ApiFixture } from '../../helpers/api.ts';
import { createRateLimiter } from '../../../src/http/rate-limit.ts';
import { ManualClock } from '../../../src/clock.ts';

describe.each(DB_KINDS)('side-port protection on %s', (kind) => {
  let f: ApiFixture;
  beforeAll(async () => {
    f = await apiFixture(kind, { api: { rateLimitPerSecond: 1, rateLimitBurst: 3 } });
  });
  afterAll(() => f.close());

  it('limits each merchant to its bucket: 429 with Retry-After, other merchants unaffected', async () => {
    const outcome = (m = f.a) => f.post('/v1/outcome', { orderSessionKey: '00000000-0000-4000-8000-000000000000' }, m);
    const codes = [];
    for (let i = 0; i < 5; i++) codes.push((await outcome()).statusCode);
    expect(codes.slice(0, 3)).toEqual([404, 404, 404]);
    expect(codes.slice(3)).toEqual([429, 429]);
    const limited = await outcome();
    expect(limited.headers['retry-after']).toMatch(/^\d+$/);
    expect(limited.json()).toMatchObject({ success: false, result: 'Failed', status: null, statusCode: 'ERR_API_RATE_LIMITED' });
    expect((await outcome(f.b)).statusCode).toBe(404);
  });

  it('refuses a body over the limit (413), a body in a media type it does not read (415), and answers 503 while draining', async () => {
    const big = await f.post('/v1/evaluate', { pad: 'x'.repeat(70_000) }, f.b);
    expect(big.statusCode).toBe(413);
    expect(big.json().statusCode).toBe('ERR_HTTP_BODY_TOO_LARGE');
    const text = await f.t.app.inject({ method: 'POST', url: '/v1/evaluate', payload: '<a/>', headers: { authorization: f.b.bearer, 'content-type': 'application/xml' } });
    expect(text.statusCode).toBe(415);
    expect(text.json().statusCode).toBe('ERR_HTTP_UNSUPPORTED_MEDIA_TYPE');
    f.t.draining.value = true;
    try {
      const res = await f.post('/v1/evaluate', {}, f.b);
      expect(res.statusCode).toBe(503);
      expect(res.json().statusCode).toBe('ERR_HTTP_DRAINING');
    } finally {
      f.t.draining.value = false;
    }
  });

  it('shares one bucket between instances (two limiters over one database)', async () => {
    // A minute after the wall clock: the earlier tests' requests (stamped by the wall clock)
    // have long refilled merchant b's bucket. A fixed date here broke once the calendar passed it.
    const clock = new ManualClock(new Date(Date.now() + 60_000));
    const db = f.t.tdb.database.db;
    const settings = { rateLimitPerSecond: 10, rateLimitBurst: 4 };
    const one = createRateLimiter(db, clock, settings);
    const two = createRateLimiter(db, clock, settings);
    const request = { merchant: { merchantId: f.b.merchantId, mid: f.b.mid, clientId: 'c' } } as never;
    const sent: number[] = [];
    const reply = { header: () => reply, code: (c: number) => (sent.push(c), reply), send: () => reply, getHeader: () => undefined } as never;
    for (let i = 0; i < 6; i++) await (i % 2 ? one : two)(request, reply);
    // Burst 4 across both instances, then refused; a second later the bucket has refilled.
    expect(sent).toEqual([429, 429]);
    clock.advance(1000);
    await one(request, reply);
    expect(sent).toHaveLength(2);
  });
});

describe.each(DB_KINDS)('metrics and API documents on %s', (kind) => {
  let f: ApiFixture;
  beforeAll(async () => {
    f = await apiFixture(kind);
  });
  afterAll(() => f.close());

  it('serves Prometheus text with requests by route and status and decisions by status', async () => {
    await f.post('/v1/evaluate', evaluateBody(await f.a.tokenOf('4111111111111111'), { tx: SOFT }));
    await f.post('/v1/outcome', {});
    const res = await f.t.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.body).toMatch(/rescued_http_requests_total\{method="POST",route="\/v1\/evaluate",status="200"\} \d+/);
    expect(res.body).toMatch(/rescued_http_requests_total\{method="POST",route="\/v1\/outcome",status="400"\} \d+/);
    expect(res.body).toMatch(/rescued_decisions_total\{kind="CIT",status="APPROVED"\} \d+/);
    expect(res.body).toMatch(/rescued_attempts_total\{outcome="approved"\} \d+/);
    for (const name of ['rescued_attempt_queue_depth', 'rescued_webhook_deliveries_total', 'rescued_batch_entries_total', 'rescued_http_request_duration_seconds']) expect(res.body).toContain(`# HELP ${name}`);
  });

  it('serves an OpenAPI 3.1 document that a published validator accepts, and the rendered reference', async () => {
    const res = await f.t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    for (const path of ['/v1/evaluate', '/v1/transmit', '/v1/outcome', '/v1/orders/{orderSessionKey}', '/v1/orders/{orderSessionKey}/refund', '/v1/orders/{orderSessionKey}/cancel', '/v1/orders/{orderSessionKey}/challenge']) {
      expect(Object.keys(doc.paths), path).toContain(path);
    }
    const evaluate = doc.paths['/v1/evaluate'].post;
    expect(evaluate.security).toEqual([{ bearerAuth: [] }]);
    const body = evaluate.requestBody.content['application/json'].schema;
    expect(JSON.stringify(body)).toContain('idempotencyKey');
    const docs = await f.t.app.inject({ method: 'GET', url: '/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toContain('text/html');
  });
});
