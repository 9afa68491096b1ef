// GET /v1/orders and GET /v1/batches[/{id}] over HTTP (inject), on each database: cursor
// pages that never skip nor repeat (also across orders sharing one created_at), the filters,
// lookup by orderId, the batch figures, the progress of a file being ingested, catalogued
// refusals, and merchant isolation on every route (another merchant's order or batch: 404).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS } from '../../helpers/db.ts';
import { apiFixture, type ApiFixture } from '../../helpers/api.ts';
import { seedListing, type Seeded } from '../../helpers/listing.ts';

type Page = { orders: Array<{ orderSessionKey: string; orderId: string; status: string; sequenceNumber: number | null; mid: string }>; nextCursor: string | null };

describe.each(DB_KINDS)('order and batch listings over HTTP on %s', (kind) => {
  let f: ApiFixture;
  let s: Seeded;
  const get = async (url: string, m?: ApiFixture['a']) => f.get(url, m);

  /** Every page of a listing, following nextCursor. */
  async function walk(query: string, m?: ApiFixture['a']): Promise<Page['orders']> {
    const all: Page['orders'] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 50; pages++) {
      const res = await get(`/v1/orders?${query}${cursor ? `&cursor=${cursor}` : ''}`, m);
      expect(res.statusCode, res.body).toBe(200);
      const page = res.json() as Page;
      all.push(...page.orders);
      if (!page.nextCursor) return all;
      cursor = page.nextCursor;
    }
    throw new Error('too many pages');
  }

  beforeAll(async () => {
    f = await apiFixture(kind);
    s = await seedListing(f.t.tdb.database.db, f.a.merchantId, f.b.merchantId, 'http');
  });
  afterAll(() => f.close());

  it('pages through the merchant\'s own orders newest first, none skipped or repeated, ties broken', async () => {
    for (const limit of [1, 3, 4, 50]) {
      const keys = (await walk(`limit=${limit}`)).map((o) => o.orderSessionKey);
      expect(keys, `limit ${limit}`).toEqual(s.aOrders);
    }
    const first = (await get('/v1/orders?limit=2')).json();
    expect(first).toMatchObject({ success: true, result: 'Success', nextCursor: expect.any(String) });
    expect(first.orders[0]).toMatchObject({ mid: f.a.mid, kind: 'MIT', card: { brand: 'VISA', last4: '1111' } });
    expect(JSON.stringify(first)).not.toContain('tok_listing');
    // B sees only its own order.
    expect((await walk('limit=2', f.b)).map((o) => o.orderSessionKey)).toEqual([s.bOrderKey]);
  });

  it('filters by status, batch (in sequenceNumber order) and creation time', async () => {
    expect((await walk('status=approved&limit=1')).map((o) => o.status)).toEqual(['APPROVED', 'APPROVED', 'APPROVED']);
    const batch = await walk(`batchId=${s.aBatchId}&limit=2`);
    expect(batch.map((o) => o.orderSessionKey)).toEqual(s.aBatchOrders);
    expect(batch.map((o) => o.sequenceNumber)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(await walk(`batchId=${s.aBatchId}&status=PENDING`)).toHaveLength(1);
    expect((await walk(`since=${encodeURIComponent(s.middle.toISOString())}`)).map((o) => o.orderSessionKey)).toEqual(s.aOrders.slice(0, 7));
    expect(await walk('since=1d')).toHaveLength(11);
    // B's batch through A's token: nothing of it.
    expect(await walk(`batchId=${s.bBatchId}`)).toEqual([]);
  });

  it('finds an order by orderId for its merchant only; another merchant\'s or an unknown orderId is 404', async () => {
    const mine = (await get(`/v1/orders?orderId=${s.sharedOrderId}`)).json() as Page;
    expect(mine.orders).toHaveLength(1);
    expect(mine.orders[0]).toMatchObject({ orderId: s.sharedOrderId, orderSessionKey: s.aOrders.at(-1), mid: f.a.mid });
    expect((await get(`/v1/orders?orderId=${s.sharedOrderId}`, f.b)).json().orders[0].orderSessionKey).toBe(s.bOrderKey);
    for (const orderId of ['ORD-http-batch-1', 'ORD-nobody']) {
      const res = await get(`/v1/orders?orderId=${orderId}`, f.b);
      expect(res.statusCode, orderId).toBe(404);
      expect(res.json()).toMatchObject({ success: false, statusCode: 'ERR_HTTP_NOT_FOUND' });
    }
    expect((await get(`/v1/orders/${s.bOrderKey}`)).statusCode).toBe(404);
  });

  it('refuses a bad cursor (400, catalogued) and bad filters naming the field', async () => {
    const batchCursor = (await get(`/v1/orders?batchId=${s.aBatchId}&limit=1`)).json().nextCursor as string;
    for (const cursor of ['garbage!', 'eyJ4IjoxfQ', batchCursor, Buffer.from('{"t":"2026-01-01T00:00:00.000000Z","i":"x"}').toString('base64url')]) {
      const res = await get(`/v1/orders?cursor=${encodeURIComponent(cursor)}`);
      expect(res.statusCode, cursor).toBe(400);
      expect(res.json()).toMatchObject({ statusCode: 'ERR_API_BAD_CURSOR', errors: [{ field: 'cursor' }] });
    }
    for (const [query, field] of [['status=LOST', 'status'], ['limit=0', 'limit'], ['limit=501', 'limit'], ['limit=ten', 'limit'], ['since=yesterday', 'since'], ['batchId=nope', 'batchId']]) {
      const res = await get(`/v1/orders?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json(), query).toMatchObject({ statusCode: 'ERR_MODEL_INVALID', errors: [expect.objectContaining({ field })] });
    }
    expect((await get('/v1/orders?status=LOST')).json().errors[0].message).toContain('SUBMITTED');
    expect((await f.t.app.inject({ method: 'GET', url: '/v1/orders' })).statusCode).toBe(401);
  });

  it('lists the merchant\'s batches, the file being ingested first; shows one with its figures', async () => {
    const list = (await get('/v1/batches')).json();
    expect(list).toMatchObject({ success: true, nextCursor: null });
    expect(list.batches.map((b: { batchId: string }) => b.batchId)).toEqual([s.progressBatchId, s.aBatchId]);
    expect(list.batches[0]).toMatchObject({ status: 'ingesting', entries: 1000, accepted: 0, ackFile: null, progress: { decided: 0, percent: 0 } });
    expect((await get('/v1/batches', f.b)).json().batches.map((b: { batchId: string }) => b.batchId)).toEqual([s.bBatchId]);
    const one = await get(`/v1/batches/${s.aBatchId}`);
    expect(one.statusCode).toBe(200);
    expect(one.json()).toMatchObject({
      success: true, batchId: s.aBatchId, mid: f.a.mid, fileName: 'http.json', status: 'partially_accepted', entries: 9, accepted: 7, rejected: 2,
      orders: { pending: 3, approved: 2, expired: 1, cancelled: 1 }, recovered: [{ currency: 'EUR', amount: 1001 }, { currency: 'USD', amount: 1000 }],
      ackFile: 'http.json.ack.json', resultsFile: null, progress: null,
    });
    expect((await get(`/v1/batches/${s.progressBatchId}`)).json()).toMatchObject({ status: 'ingesting', orders: null, recovered: [] });
  });

  it('pages batches by cursor and answers 404 for another merchant\'s batch', async () => {
    const first = (await get('/v1/batches?limit=1')).json();
    expect(first.batches.map((b: { batchId: string }) => b.batchId)).toEqual([s.progressBatchId, s.aBatchId]);
    expect(first.nextCursor).toBeNull();
    expect((await get('/v1/batches?cursor=bad')).json().statusCode).toBe('ERR_API_BAD_CURSOR');
    for (const id of [s.bBatchId, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const res = await get(`/v1/batches/${id}`);
      expect(res.statusCode, id).toBe(404);
      expect(res.json().statusCode).toBe('ERR_HTTP_NOT_FOUND');
    }
    expect((await get(`/v1/batches/${s.progressBatchId}`, f.b)).statusCode).toBe(404);
  });

  it('documents the new routes in the OpenAPI document', async () => {
    const doc = (await f.t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc.paths['/v1/orders'].get.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['batchId', 'cursor', 'limit', 'orderId', 'since', 'status']);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/v1/batches', '/v1/batches/{batchId}']));
    expect(doc.paths['/v1/orders'].get.responses['200'].content['application/json'].schema.properties.nextCursor).toBeDefined();
  });
});
