// The progress row of a batch file being ingested (schema.ts, batch_progress): written by
// intake on a connection beside the file's transaction, removed inside it at the commit;
// read by `batches list|show` and GET /v1/batches.
import { and, eq, ne, sql } from 'drizzle-orm';
import type { DbOrTx } from '../client.ts';
import { batchProgress } from '../schema.ts';

export type ProgressRow = typeof batchProgress.$inferSelect;

/**
 * Starts the row of `batchId`. A row of the same merchant and file name is a leftover of an
 * ingest that a crash cut short (the file stayed in inbound/ and this is its new ingest): the
 * caller holds the file's lock, so no other ingest of that name is running.
 */
export async function startProgress(db: DbOrTx, row: { batchId: string; merchantId: string; fileName: string; entryCount: number; startedAt: Date }): Promise<void> {
  await db.delete(batchProgress).where(and(eq(batchProgress.merchantId, row.merchantId), eq(batchProgress.fileName, row.fileName), ne(batchProgress.batchId, row.batchId)));
  await db.insert(batchProgress).values(row).onConflictDoNothing();
}

/** clock_timestamp: the time of the write, whatever transaction it runs in. */
export async function updateProgress(db: DbOrTx, batchId: string, counts: { accepted: number; rejected: number }): Promise<void> {
  await db
    .update(batchProgress)
    .set({ acceptedCount: counts.accepted, rejectedCount: counts.rejected, updatedAt: sql`clock_timestamp()` })
    .where(eq(batchProgress.batchId, batchId));
}

export async function endProgress(db: DbOrTx, batchId: string): Promise<void> {
  await db.delete(batchProgress).where(eq(batchProgress.batchId, batchId));
}
