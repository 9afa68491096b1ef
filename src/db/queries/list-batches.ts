// Batches newest first, a page at a time by keyset (received_at, id), and the files still
// being ingested (batch_progress), for `rescued batches list` and GET /v1/batches. Only the
// batch rows' own figures: what became of each batch's orders is `batch-figures.ts`, one
// batch at a time, because it reads every order of the batch.
import { and, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { batches, batchProgress, merchants } from '../schema.ts';

export interface BatchKey {
  receivedAt: string;
  id: string;
}

/** received_at exactly, as text (see list-orders.ts: a millisecond key would skip rows). */
const receivedKey = sql<string>`to_char(${batches.receivedAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

const batchColumns = {
  id: batches.id,
  merchantId: batches.merchantId,
  mid: merchants.mid,
  fileName: batches.fileName,
  sha256: batches.sha256,
  status: batches.status,
  entryCount: batches.entryCount,
  acceptedCount: batches.acceptedCount,
  rejectedCount: batches.rejectedCount,
  receivedAt: batches.receivedAt,
  finishedAt: batches.finishedAt,
  resultsWrittenAt: batches.resultsWrittenAt,
  errorCode: batches.errorCode,
  errorMessage: batches.errorMessage,
  fileBytes: batches.fileBytes,
  receivedKey,
};

export type BatchListRow = Awaited<ReturnType<typeof listBatches>>[number];

export async function listBatches(db: Db, merchantId: string | undefined, after: BatchKey | undefined, limit: number) {
  const where: SQL[] = [];
  if (merchantId) where.push(eq(batches.merchantId, merchantId));
  if (after) where.push(sql`(${batches.receivedAt}, ${batches.id}) < (${after.receivedAt}::timestamptz, ${after.id}::uuid)`);
  return db
    .select(batchColumns)
    .from(batches)
    .innerJoin(merchants, eq(merchants.id, batches.merchantId))
    .where(and(...where))
    .orderBy(desc(batches.receivedAt), desc(batches.id))
    .limit(limit);
}

const progressColumns = {
  batchId: batchProgress.batchId,
  merchantId: batchProgress.merchantId,
  mid: merchants.mid,
  fileName: batchProgress.fileName,
  entryCount: batchProgress.entryCount,
  acceptedCount: batchProgress.acceptedCount,
  rejectedCount: batchProgress.rejectedCount,
  startedAt: batchProgress.startedAt,
  updatedAt: batchProgress.updatedAt,
};

export type ProgressListRow = Awaited<ReturnType<typeof listProgress>>[number];

/** Files being ingested now (a handful at most: one per instance at a time), newest first. */
export async function listProgress(db: Db, merchantId: string | undefined) {
  return db
    .select(progressColumns)
    .from(batchProgress)
    .innerJoin(merchants, eq(merchants.id, batchProgress.merchantId))
    .where(merchantId ? eq(batchProgress.merchantId, merchantId) : undefined)
    .orderBy(desc(batchProgress.startedAt));
}

/**
 * One batch, or the progress of one file being ingested, by batch id or by file name (the
 * most recent of that name: a merchant may send a name again). A file being ingested under
 * the name wins: it is the newest. `merchantId` confines the search to that merchant.
 */
export type FoundBatch = { progress: ProgressListRow } | { batch: BatchListRow };

export async function findBatch(db: Db, ref: { id: string } | { fileName: string }, merchantId: string | undefined): Promise<FoundBatch | undefined> {
  const own = (column: typeof batches.merchantId | typeof batchProgress.merchantId) => (merchantId ? eq(column, merchantId) : undefined);
  const [progress] = await db
    .select(progressColumns)
    .from(batchProgress)
    .innerJoin(merchants, eq(merchants.id, batchProgress.merchantId))
    .where(and('id' in ref ? eq(batchProgress.batchId, ref.id) : eq(batchProgress.fileName, ref.fileName), own(batchProgress.merchantId)))
    .orderBy(desc(batchProgress.startedAt))
    .limit(1);
  if (progress) return { progress };
  const [batch] = await db
    .select(batchColumns)
    .from(batches)
    .innerJoin(merchants, eq(merchants.id, batches.merchantId))
    .where(and('id' in ref ? eq(batches.id, ref.id) : eq(batches.fileName, ref.fileName), own(batches.merchantId)))
    .orderBy(desc(batches.receivedAt))
    .limit(1);
  return batch ? { batch } : undefined;
}
