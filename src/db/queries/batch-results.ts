// Reads for the batch-finishing sweep: batches whose orders are all final, and their orders
// in sequence order, a page at a time (orders_batch_sequence_idx), for the results file.
import { and, asc, eq, gt, isNull, sql } from 'drizzle-orm';
import type { DbOrTx as Tx } from '../client.ts';
import { batches, orders, sftpUsers } from '../schema.ts';


export interface FinishedBatch {
  id: string;
  merchantId: string;
  fileName: string;
  receivedAt: Date;
  username: string | null;
}

/** Batches still without a results file whose every order is final. */
export async function findFinishedBatches(db: Tx, limit: number): Promise<FinishedBatch[]> {
  return db
    .select({ id: batches.id, merchantId: batches.merchantId, fileName: batches.fileName, receivedAt: batches.receivedAt, username: sftpUsers.username })
    .from(batches)
    .leftJoin(sftpUsers, eq(sftpUsers.merchantId, batches.merchantId))
    .where(
      and(
        isNull(batches.resultsWrittenAt),
        sql`${batches.status} <> 'rejected'`,
        sql`not exists (select 1 from orders o where o.batch_id = ${batches.id} and o.status not in ('APPROVED', 'DECLINED', 'EXPIRED', 'CANCELLED'))`,
      ),
    )
    .orderBy(asc(batches.receivedAt))
    .limit(limit);
}

export interface ResultRow {
  sequenceNumber: number | null;
  orderId: string;
  orderSessionKey: string;
  status: string;
  reason: string | null;
  attempts: number;
  finishedAt: Date | null;
  confirmationId: string | null;
}

export async function batchResultPage(db: Tx, batchId: string, afterSequence: number, limit: number): Promise<ResultRow[]> {
  return db
    .select({
      sequenceNumber: orders.sequenceNumber, orderId: orders.orderId, orderSessionKey: orders.id, status: orders.status, reason: orders.statusReason,
      attempts: orders.attemptCount, finishedAt: orders.finishedAt, confirmationId: orders.confirmationId,
    })
    .from(orders)
    .where(and(eq(orders.batchId, batchId), gt(orders.sequenceNumber, afterSequence)))
    .orderBy(asc(orders.sequenceNumber))
    .limit(limit);
}

export async function markResultsWritten(db: Tx, batchId: string, at: Date): Promise<void> {
  await db.update(batches).set({ resultsWrittenAt: at }).where(and(eq(batches.id, batchId), isNull(batches.resultsWrittenAt)));
}
