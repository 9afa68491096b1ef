// Request bounds: text fields have a documented maximum length, a body nests no deeper than
// MAX_DEPTH, a NUL anywhere is refused, all with 400 (never 500); and a body's mid and siteId
// must be the calling merchant's own (403), not another merchant's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS } from '../../helpers/db.ts';
import { apiFixture, evaluateBody, SOFT, type ApiFixture } from '../../helpers/api.ts';
import { MAX_DEPTH } from '../../../src/http/body-bounds.ts';
import { MAX_TEXT } from '../../../src/domain/schemas/fields.ts';

describe.each(DB_KINDS)('request bounds on %s', (kind) => {
  let f: ApiFixture;
  let tok: string;
  beforeAll(async () => {
    f = await apiFixture(kind);
    tok = await f.a.tokenOf('4111111111111111');
  });
  afterAll(() => f.close());

  it(`refuses an orderId longer than ${MAX_TEXT} characters with a field error`, async () => {
    const res = await f.post('/v1/evaluate', evaluateBody(tok, { tx: SOFT, top: { orderId: 'O'.repeat(60_000) } }));
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual(expect.arrayContaining([{ field: 'orderId', code: 'ERR_MODEL_FORMAT', message: `orderId must be at most ${MAX_TEXT} characters.` }]));
    expect((await f.post('/v1/evaluate', evaluateBody(tok, { tx: SOFT, top: { orderId: 'O'.repeat(MAX_TEXT) } }))).statusCode).toBe(200);
  });

  // 30,000 levels fit the test app's 64 KiB body limit and overflow JSON.stringify's stack.
  it('answers 400, not 500, for a 30,000-deep array', async () => {
    const deep = `${'['.repeat(30_000)}${']'.repeat(30_000)}`;
    const body = JSON.stringify({ ...evaluateBody(tok, { tx: SOFT }), additionalFields: 'X' }).replace('"X"', deep);
    const res = await f.t.app.inject({ method: 'POST', url: '/v1/evaluate', payload: body, headers: { authorization: f.a.bearer, 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ statusCode: 'ERR_HTTP_BODY_INVALID', message: expect.stringContaining(`deeper than ${MAX_DEPTH}`) });
  });

  it('answers 400 for a NUL in any field, value or name', async () => {
    for (const body of [evaluateBody(tok, { tx: SOFT, top: { orderId: 'ORD-\u0000-1' } }), { ...evaluateBody(tok, { tx: SOFT }), ['odd\u0000key']: 1 }]) {
      const res = await f.post('/v1/evaluate', body);
      expect(res.statusCode).toBe(400);
      expect(res.json().statusCode).toBe('ERR_HTTP_BODY_INVALID');
    }
    const transmit = await f.post('/v1/transmit', { orderId: 'T\u0000', transaction: { amount: 1 }, payer: { email: 'a@b.example' } });
    expect(transmit.statusCode).toBe(400);
  });

  it("refuses merchant B's token with merchant A's mid or siteId (403), and stores nothing", async () => {
    const tokB = await f.b.tokenOf('4111111111111111');
    for (const top of [{ mid: f.a.mid }, { siteId: f.a.siteId }]) {
      const res = await f.post('/v1/evaluate', evaluateBody(tokB, { tx: SOFT, top }), f.b);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ statusCode: 'ERR_API_MERCHANT_MISMATCH', errors: [{ field: Object.keys(top)[0] }] });
    }
    const transmit = await f.post('/v1/transmit', { orderId: 'T-1', mid: f.a.mid, transaction: { amount: 1 }, payer: { email: 'a@b.example' } }, f.b);
    expect(transmit.statusCode).toBe(403);
    // Its own ids are fine.
    expect((await f.post('/v1/evaluate', evaluateBody(tokB, { tx: SOFT, top: { mid: f.b.mid, siteId: f.b.siteId } }), f.b)).statusCode).toBe(200);
  });
});
