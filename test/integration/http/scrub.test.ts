// The one scrubber (src/scrub.ts) where card data used to get past it: merchant free text
// before it is stored (refund messages, additionalFields values, a cancel body), request URLs
// in the HTTP log (the request serializer writes after the logger's formatters), and the
// unhandled-error line of a failed query (drizzle spells out every parameter).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { DB_KINDS } from '../../helpers/db.ts';
import { apiFixture, evaluateBody, SOFT, type ApiFixture } from '../../helpers/api.ts';
import { createLogger } from '../../../src/log.ts';
import { orders, refunds } from '../../../src/db/schema.ts';
import { checkEntry, orderRow } from '../../../src/intake/entries.ts';

const NOTE = 'customer read out card 4242424242424242 cvv 5678 on the phone';
const STORED = 'customer read out card 424242******4242 cvv [redacted] on the phone';
/** A card number or the CVV in clear, in any text. */
const CLEAR = /4242424242424242|5105105105105100|cvv\W{0,3}(5678|7777)|(?<!\d)(5678|7777)(?!\d)/i;

const rowsOf = (r: unknown) => (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows) as Array<Record<string, string>>;

describe.each(DB_KINDS)('card data scrubbed from free text, request logs and database errors on %s', (kind) => {
  let f: ApiFixture;
  const lines: string[] = [];
  const db = () => f.t.tdb.database.db;
  const approved = async () => {
    const res = await f.post('/v1/evaluate', evaluateBody(await f.a.tokenOf('4111111111111111'), { tx: SOFT }));
    expect(res.json().status).toBe('APPROVED');
    return res.json().orderSessionKey as string;
  };

  /** Every text and json value of every table, as text. */
  async function databaseText(): Promise<string> {
    const columns = rowsOf(await db().execute(sql`select table_name, column_name from information_schema.columns where table_schema = 'public' and data_type in ('text', 'character varying', 'json', 'jsonb')`));
    const values: string[] = [];
    for (const { table_name: table, column_name: column } of columns) {
      const rows = rowsOf(await db().execute(sql`select ${sql.identifier(column!)}::text as v from ${sql.identifier(table!)} where ${sql.identifier(column!)} is not null`));
      values.push(...rows.map((r) => r.v!));
    }
    return values.join('\n');
  }

  beforeAll(async () => {
    const log = createLogger({ level: 'info', destination: new Writable({ write: (chunk, _e, cb) => (lines.push(String(chunk)), cb()) }) as never });
    f = await apiFixture(kind, { log });
  });
  afterAll(() => f.close());

  it('stores refund messages and additionalFields values masked, and nothing of a cancel body', async () => {
    const key = await approved();
    const refund = await f.post(`/v1/orders/${key}/refund`, { amount: 100, refundMessage: NOTE });
    expect(refund.statusCode, refund.body).toBe(200);
    const [row] = await db().select({ message: refunds.message }).from(refunds).where(eq(refunds.id, refund.json().refundId));
    expect(row?.message).toBe(STORED);

    const cit = await f.post('/v1/evaluate', evaluateBody(await f.a.tokenOf('4111111111111111'), { tx: SOFT, top: { additionalFields: [{ key: 'callNote', value: NOTE }] } }));
    expect(cit.statusCode, cit.body).toBe(200);
    const [order] = await db().select({ request: orders.request }).from(orders).where(eq(orders.id, cit.json().orderSessionKey));
    expect((order?.request as { additionalFields: unknown }).additionalFields).toEqual([{ key: 'callNote', value: STORED }]);

    const mit = (await f.post('/v1/evaluate', evaluateBody(await f.a.tokenOf('4000000000000077'), { mit: true }))).json().orderSessionKey as string;
    const cancel = await f.post(`/v1/orders/${mit}/cancel`, { reason: NOTE, cancelReason: NOTE });
    expect(cancel.json()).toMatchObject({ status: 'CANCELLED', reason: 'cancelled_by_merchant' });

    const text = await databaseText();
    expect(text).toContain('424242******4242');
    expect(text).not.toMatch(CLEAR);
  });

  it('logs request URLs without a card number or CVV in the path or the query', async () => {
    lines.length = 0;
    expect((await f.get('/v1/orders/5105105105105100')).statusCode).toBe(404);
    const tokenize = await f.t.app.inject({
      method: 'POST', url: `/v1/tokenize?mid=${f.a.mid}&card=4242424242424242&cvv=7777&environment=${encodeURIComponent(f.a.tokenizationKey)}`, payload: {},
    });
    expect(tokenize.statusCode).toBeGreaterThanOrEqual(400);
    // One line per request (src/http/app.ts), its url scrubbed.
    const urls = lines.map((l) => JSON.parse(l) as { msg: string; url?: string }).flatMap((l) => (l.msg === 'request' && l.url ? [l.url] : []));
    expect(urls).toEqual([
      '/v1/orders/510510******5100',
      `/v1/tokenize?mid=${f.a.mid}&card=[redacted]&cvv=[redacted]&environment=[redacted]`,
    ]);
    const out = lines.join('');
    expect(out).not.toMatch(CLEAR);
    expect(out).not.toContain(f.a.tokenizationKey);
  });

  it('logs a failed query as its statement and code, without its parameters', async () => {
    const key = await approved();
    await db().execute(sql`alter table refunds rename to refunds_away`);
    try {
      lines.length = 0;
      const res = await f.post(`/v1/orders/${key}/refund`, { amount: 100, idempotencyKey: 'jane.doe@example.com-private' });
      expect(res.statusCode).toBe(500);
      const line = lines.map((l) => JSON.parse(l) as { msg: string; err?: Record<string, unknown> }).find((l) => l.msg === 'unhandled error');
      expect(line?.err).toMatchObject({ type: 'DatabaseError', statement: 'select refunds', code: '42P01' });
      expect(JSON.stringify(line?.err)).not.toContain(key); // the first parameter
      const out = lines.join('');
      expect(out).not.toContain('jane.doe');
      expect(out).not.toMatch(/params:|\$1/);
    } finally {
      await db().execute(sql`alter table refunds_away rename to refunds`);
    }
  });
});

describe('batch entries', () => {
  it('store additionalFields values masked', () => {
    const layout = JSON.parse(readFileSync(join(import.meta.dirname, '../../../samples/requests/batch-layout.json'), 'utf8')) as { expiryDateUtc: string; requests: Record<string, unknown>[] };
    const raw = { ...layout.requests[0], additionalFields: [{ key: 'note', value: NOTE }] };
    const ctx = { merchantId: 'm', batchId: 'b', mode: 'sandbox' as const, defaultExpiryDateUtc: new Date(layout.expiryDateUtc).toISOString(), now: new Date() };
    const checked = checkEntry(raw, 1, ctx);
    expect(checked.ok, JSON.stringify(checked)).toBe(true);
    if (!checked.ok) return;
    const request = orderRow(checked.entry, 'tok_x', ctx).request as { additionalFields: unknown };
    expect(request.additionalFields).toEqual([{ key: 'note', value: STORED }]);
  });
});
