// The bulk insert behind batch intake: COPY in a savepoint on PostgreSQL with the careful
// INSERT … ON CONFLICT as the fallback, the INSERT alone on PGlite. Whatever the path, a chunk
// stores every new row exactly as given, reports duplicates instead of failing, and leaves
// the file's transaction usable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { insertOrders, type NewOrder } from '../../../src/db/queries/insert-orders.ts';
import { copyText } from '../../../src/db/queries/copy-orders.ts';
import { orders } from '../../../src/db/schema.ts';
import { DB_KINDS, freshDatabase, type TestDatabase } from '../../helpers/db.ts';

const merchantId = randomUUID();
const batchId = randomUUID();

function order(orderId: string, extra: Partial<NewOrder> = {}): NewOrder {
  return {
    id: randomUUID(), merchantId, batchId, sequenceNumber: 1, orderId, idempotencyKey: randomUUID(), kind: 'MIT', status: 'SUBMITTED',
    amount: 1999, currency: 'USD', cardToken: 'tok_test', cardBrand: 'VISA', cardBin: '411111', cardLast4: '1111',
    expiresAt: new Date('2030-01-02T03:04:05.678Z'), declineCode: '51', declineSource: 'ISO8583',
    request: { orderId, note: 'tab\there, newline\nhere, backslash \\ and "quotes", ünïcode ✓' }, nextAttemptAt: new Date('2026-11-22T10:00:00.000Z'),
    ...extra,
  };
}

describe('COPY text values', () => {
  it.each([
    [null, '\\N'],
    [undefined, '\\N'],
    [42, '42'],
    ['plain', 'plain'],
    ['a\tb\nc\rd\\e', 'a\\tb\\nc\\rd\\\\e'],
    [new Date('2030-01-02T03:04:05.678Z'), '2030-01-02T03:04:05.678Z'],
    [{ a: 'x\ty' }, '{"a":"x\\\\ty"}'],
  ])('%j → %s', (value, text) => expect(copyText(value)).toBe(text));
});

describe.each(DB_KINDS)('inserting order chunks on %s', (kind) => {
  let tdb: TestDatabase;
  beforeAll(async () => void (tdb = await freshDatabase(kind)));
  afterAll(async () => tdb?.dispose());

  it('stores every row of a new chunk exactly as given', async () => {
    const rows = [order('plain-1'), order('plain-2', { batchId: null, sequenceNumber: null, cardBrand: null, cardBin: null, cardLast4: null, expiresAt: null })];
    const inserted = await tdb.database.db.transaction((tx) => insertOrders(tx, rows));
    expect(inserted).toEqual(new Set(rows.map((r) => r.id)));
    for (const row of rows) {
      const [stored] = await tdb.database.db.select().from(orders).where(eq(orders.id, row.id!));
      expect(stored).toMatchObject({ ...row, statusReason: null, attemptCount: 0, refundedAmount: 0 });
    }
  });

  it('leaves out repeats within the chunk and of earlier orders, and keeps the rest of the transaction', async () => {
    const earlier = order('dup-earlier');
    await tdb.database.db.transaction((tx) => insertOrders(tx, [earlier]));
    const first = order('dup-first');
    const sameOrderId = order('dup-first');
    const sameKey = order('dup-key', { idempotencyKey: earlier.idempotencyKey });
    const fresh = order('dup-fresh');
    const after = order('dup-after');
    const [before, chunk, next] = await tdb.database.db.transaction(async (tx) => {
      const a = await insertOrders(tx, [order('dup-before')]);
      const b = await insertOrders(tx, [first, sameOrderId, { ...earlier, id: randomUUID() }, sameKey, fresh]);
      const c = await insertOrders(tx, [after]);
      return [a, b, c];
    });
    expect(before.size).toBe(1);
    expect(chunk).toEqual(new Set([first.id, fresh.id]));
    expect(next).toEqual(new Set([after.id]));
    const stored = await tdb.database.db.select({ orderId: orders.orderId }).from(orders).where(eq(orders.merchantId, merchantId));
    expect(stored.map((r) => r.orderId).filter((o) => o.startsWith('dup-')).sort()).toEqual(['dup-after', 'dup-before', 'dup-earlier', 'dup-first', 'dup-fresh']);
  });

  it('fails with the database error when a row cannot be stored, and keeps nothing of the transaction', async () => {
    const bad = order('bad-amount', { amount: Number.MAX_SAFE_INTEGER });
    await expect(tdb.database.db.transaction(async (tx) => {
      await insertOrders(tx, [order('bad-before')]);
      await insertOrders(tx, [order('bad-sibling'), bad]);
    })).rejects.toThrow(/out of range/);
    const stored = await tdb.database.db.select({ orderId: orders.orderId }).from(orders).where(eq(orders.merchantId, merchantId));
    expect(stored.map((r) => r.orderId).filter((o) => o.startsWith('bad-'))).toEqual([]);
  });
});

// Only PostgreSQL has the COPY path (empty without TEST_DATABASE_URL; .ci/run sets it).
describe.each(DB_KINDS.filter((k) => k === 'postgres'))('the COPY path on %s', (kind) => {
  let tdb: TestDatabase;
  beforeAll(async () => void (tdb = await freshDatabase(kind)));
  afterAll(async () => tdb?.dispose());

  it('COPYs a new chunk, and falls back to the INSERT only for a chunk with a repeat', async () => {
    const statements: string[] = [];
    const seen = await tdb.database.db.transaction(async (tx) => {
      // The driver's client under drizzle's transaction: record what reaches it.
      const client = (tx as unknown as { session: { client: { unsafe: (q: string, ...rest: unknown[]) => unknown } } }).session.client;
      const unsafe = client.unsafe;
      client.unsafe = (q: string, ...rest: unknown[]) => (statements.push(q.trim().split(/\s+/).slice(0, 3).join(' ')), unsafe(q, ...rest));
      const fresh = await insertOrders(tx, [order('path-1'), order('path-2')]);
      statements.push('--');
      const repeat = await insertOrders(tx, [order('path-3'), order('path-1')]);
      return [fresh.size, repeat.size];
    });
    expect(seen).toEqual([2, 1]);
    const [first, second] = [statements.slice(0, statements.indexOf('--')), statements.slice(statements.indexOf('--') + 1)];
    // The COPY itself runs on the driver's savepoint scope; here only our savepoint shows.
    expect(first).toEqual(['savepoint rescued_copy_orders', 'release savepoint rescued_copy_orders']);
    expect(second).toEqual(['savepoint rescued_copy_orders', 'release savepoint rescued_copy_orders', 'insert into orders']);
  });
});
