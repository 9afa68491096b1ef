// Orders and batches of two merchants, stored directly (not through evaluate or intake: the
// listings are under test, not how rows come to be), for the listing tests of the API and CLI.
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Db } from '../../src/db/client.ts';
import { insertOrders, type NewOrder } from '../../src/db/queries/insert-orders.ts';
import { insertBatch } from '../../src/db/queries/batches.ts';
import { startProgress } from '../../src/db/queries/batch-progress.ts';
import { orders } from '../../src/db/schema.ts';

export function orderRowFor(merchantId: string, orderId: string, extra: Partial<NewOrder> = {}): NewOrder {
  return {
    id: randomUUID(), merchantId, orderId, idempotencyKey: randomUUID(), kind: 'MIT', status: 'SUBMITTED', amount: 1000, currency: 'USD',
    cardToken: 'tok_listing', cardBrand: 'VISA', cardBin: '411111', cardLast4: '1111', expiresAt: new Date(Date.now() + 86_400_000),
    declineCode: '51', declineSource: 'NA', request: { orderId }, nextAttemptAt: new Date(), ...extra,
  };
}

export interface Seeded {
  /** A's orders, newest first, as the listing must answer them. */
  aOrders: string[];
  aBatchId: string;
  /** The batch's orders by sequenceNumber. */
  aBatchOrders: string[];
  bOrderKey: string;
  bBatchId: string;
  progressBatchId: string;
  /** orderId used by both merchants. */
  sharedOrderId: string;
  /** Between A's single orders and its batch. */
  middle: Date;
}

/** The scenario's clock: a few milliseconds between two statements give them distinct created_at. */
const pause = () => new Promise((r) => setTimeout(r, 5));
/** In a transaction, as intake stores them (PostgreSQL's COPY path takes a savepoint); one transaction, one created_at. */
const store = (db: Db, rows: NewOrder[]) => db.transaction((tx) => insertOrders(tx, rows));

/**
 * Merchant A: four orders stored one statement each (distinct created_at), then a batch of
 * seven stored in one statement (one created_at: the keyset must break the tie), statuses
 * set across the batch; a file being ingested. Merchant B: one order with A's first orderId,
 * a batch, nothing else.
 */
export async function seedListing(db: Db, a: string, b: string, tag: string): Promise<Seeded> {
  const singles: string[] = [];
  for (let i = 1; i <= 4; i++) {
    const row = orderRowFor(a, `ORD-${tag}-single-${i}`, i === 2 ? { kind: 'CIT', status: 'APPROVED', amount: 2500, finishedAt: new Date() } : {});
    await store(db, [row]);
    singles.push(row.id!);
    await pause();
  }
  const middle = new Date();
  await pause();
  const aBatchId = randomUUID();
  await insertBatch(db, { id: aBatchId, merchantId: a, fileName: `${tag}.json`, sha256: 'a'.repeat(64), status: 'partially_accepted', entryCount: 9, acceptedCount: 7, rejectedCount: 2, receivedAt: new Date() });
  const statuses = ['APPROVED', 'APPROVED', 'PENDING', 'EXPIRED', 'CANCELLED', 'SUBMITTED', 'PROCESSING'];
  const batchRows = statuses.map((status, i) => orderRowFor(a, `ORD-${tag}-batch-${i + 1}`, { batchId: aBatchId, sequenceNumber: i + 1, amount: 1000 + i, ...(i === 1 ? { currency: 'EUR' } : {}) }));
  await store(db, batchRows);
  for (const [i, status] of statuses.entries()) await db.update(orders).set({ status }).where(eq(orders.id, batchRows[i]!.id!));
  const bRow = orderRowFor(b, `ORD-${tag}-single-1`);
  await store(db, [bRow]);
  const bBatchId = randomUUID();
  await insertBatch(db, { id: bBatchId, merchantId: b, fileName: `${tag}.json`, sha256: 'b'.repeat(64), status: 'accepted', entryCount: 1, acceptedCount: 1, rejectedCount: 0, receivedAt: new Date() });
  const progressBatchId = randomUUID();
  await startProgress(db, { batchId: progressBatchId, merchantId: a, fileName: `${tag}-big.json`, entryCount: 1000, startedAt: new Date() });
  // Newest first: the batch (one created_at, then id descending), then the singles backwards.
  const batchByIdDesc = batchRows.map((r) => r.id!).sort().reverse();
  return {
    aOrders: [...batchByIdDesc, ...singles.reverse()],
    aBatchId,
    aBatchOrders: batchRows.map((r) => r.id!),
    bOrderKey: bRow.id!,
    bBatchId,
    progressBatchId,
    sharedOrderId: `ORD-${tag}-single-1`,
    middle,
  };
}
