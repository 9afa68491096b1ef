// A large batch file's staged ingest (src/intake/staged.ts): its batch row, committed as
// `ingesting` before its entries, says in each chunk's transaction how many entries are
// committed; a resumed ingest reads its orders back to re-derive the ack of those entries.
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '../client.ts';
import { batches, orders } from '../schema.ts';

/**
 * In a chunk's transaction: the entries decided so far (accepted + rejected is where a resume
 * starts). Until the batch's last transaction, finished_at is the time of its latest chunk.
 */
export async function recordChunk(tx: DbOrTx, batchId: string, counts: { acceptedCount: number; rejectedCount: number }): Promise<void> {
  await tx.update(batches).set({ ...counts, finishedAt: new Date() }).where(eq(batches.id, batchId));
}

/** The orders of the batch among these orderIds (unique per merchant: one each at most). */
export async function storedOrdersOf(tx: DbOrTx, merchantId: string, batchId: string, orderIds: string[]): Promise<Map<string, { id: string; sequenceNumber: number | null }>> {
  if (orderIds.length === 0) return new Map();
  const rows = await tx
    .select({ id: orders.id, orderId: orders.orderId, sequenceNumber: orders.sequenceNumber })
    .from(orders)
    .where(and(eq(orders.merchantId, merchantId), inArray(orders.orderId, orderIds), eq(orders.batchId, batchId)));
  return new Map(rows.map((r) => [r.orderId, { id: r.id, sequenceNumber: r.sequenceNumber }]));
}

/**
 * A file set aside (quarantined) while its staged ingest had committed part of it: its batch
 * ends with the entries it holds (its results file then follows its orders), instead of
 * staying `ingesting` for a file that is gone. Answers the batches closed.
 */
export async function closeIngesting(db: DbOrTx, merchantId: string, fileName: string): Promise<Array<{ id: string; entries: number }>> {
  return db
    .update(batches)
    .set({
      status: sql`case when ${batches.acceptedCount} = 0 then 'rejected' when ${batches.rejectedCount} = 0 then 'accepted' else 'partially_accepted' end`,
      entryCount: sql`${batches.acceptedCount} + ${batches.rejectedCount}`,
      finishedAt: new Date(),
    })
    .where(and(eq(batches.merchantId, merchantId), eq(batches.fileName, fileName), eq(batches.status, 'ingesting')))
    .returning({ id: batches.id, entries: batches.entryCount });
}
