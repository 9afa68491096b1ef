// Answers the abuse bench (npm run bench -- abuse) found wrong, on each database: a refund
// whose body is not an object refunded the whole order, and paths fastify's router cannot
// read were answered outside the error catalogue.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS } from '../../helpers/db.ts';
import { apiFixture, evaluateBody, SOFT, type ApiFixture } from '../../helpers/api.ts';

describe.each(DB_KINDS)('abuse regressions on %s', (kind) => {
  let f: ApiFixture;
  const raw = (url: string, payload: string) =>
    f.t.app.inject({ method: 'POST', url, payload, headers: { authorization: f.a.bearer, 'content-type': 'application/json' } });

  beforeAll(async () => {
    f = await apiFixture(kind);
  });
  afterAll(() => f.close());

  it('refuses a refund whose body is not an object, and refunds nothing', async () => {
    const res = await f.post('/v1/evaluate', evaluateBody(await f.a.tokenOf('4111111111111111'), { tx: SOFT }));
    expect(res.json().status).toBe('APPROVED');
    const key = res.json().orderSessionKey as string;
    for (const body of ['[]', '42', '"text"', 'true', 'null']) {
      const refund = await raw(`/v1/orders/${key}/refund`, body);
      expect(refund.statusCode, body).toBe(400);
      expect(refund.json(), body).toMatchObject({ statusCode: 'ERR_MODEL_INVALID', errors: [{ field: '$', code: 'ERR_MODEL_TYPE' }] });
    }
    expect((await f.post('/v1/outcome', { orderSessionKey: key })).json()).toMatchObject({ status: 'APPROVED', refundedAmount: 0 });
    // An object (or no body at all) is still a refund.
    expect((await f.post(`/v1/orders/${key}/refund`, { amount: 100 })).json()).toMatchObject({ status: 'SUCCESS', refundedAmount: 100 });
  });

  it('answers 404 with the catalogue body for a path the router cannot read', async () => {
    for (const path of ['/v1/orders/%FF%FE', `/v1/orders/${'x'.repeat(5000)}`, '/v1/batches/%E0%A4%A']) {
      const res = await f.get(path);
      expect(res.statusCode, path.slice(0, 40)).toBe(404);
      expect(res.json(), path.slice(0, 40)).toMatchObject({ success: false, statusCode: 'ERR_HTTP_NOT_FOUND' });
    }
  });
});
