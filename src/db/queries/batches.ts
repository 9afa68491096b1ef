import { and, eq, ne } from 'drizzle-orm';
import type { DbOrTx as Tx } from '../client.ts';
import { batches } from '../schema.ts';

export type NewBatch = typeof batches.$inferInsert;
export type BatchRow = typeof batches.$inferSelect;

/** The merchant's ingested (not rejected) batch with this SHA-256, if any. */
export async function findIngestedBatch(db: Tx, merchantId: string, sha256: string): Promise<BatchRow | undefined> {
  const [row] = await db
    .select()
    .from(batches)
    .where(and(eq(batches.merchantId, merchantId), eq(batches.sha256, sha256), ne(batches.status, 'rejected')))
    .limit(1);
  return row;
}

export async function insertBatch(db: Tx, row: NewBatch): Promise<void> {
  await db.insert(batches).values(row);
}

export async function updateBatchCounts(db: Tx, id: string, counts: Pick<BatchRow, 'status' | 'acceptedCount' | 'rejectedCount' | 'entryCount'>): Promise<void> {
  await db.update(batches).set({ ...counts, finishedAt: new Date() }).where(eq(batches.id, id));
}
