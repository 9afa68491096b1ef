// Reads for the batch-finishing sweep: batches whose orders are all final, and their orders
// in sequence order, a page at a time (orders_batch_sequence_idx), for the results file.
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { DbOrTx as Tx } from '../client.ts';
import { batches, sftpUsers } from '../schema.ts';
import { selectRows } from './claim-orders.ts';


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
        // A batch still `ingesting` (src/intake/staged.ts) has orders yet to come, final or not.
        sql`${batches.status} not in ('rejected', 'ingesting')`,
        // The open statuses (every status that is not final), spelled as orders_open_batch_idx's
        // predicate so that the question is one probe of that partial index, instead of a walk
        // of the batch's orders in sequence order (most of a million-order batch near its end).
        sql`not exists (select 1 from orders o where o.batch_id = ${batches.id} and o.batch_id is not null and o.status in ('SUBMITTED', 'PENDING', 'PROCESSING', 'CHALLENGE'))`,
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
  /** The last answered attempt's account and the gateway's own words. */
  gateway: { account: string | null; type: string | null; rawCode: string | null; rawMessage: string | null; networkTransactionId: string | null } | null;
  /** orders.recovered_by, awaiting_card and card_updates as stored (src/domain/card-updates.ts decodes them). */
  recoveredBy: string | null;
  awaitingCard: unknown;
  cardUpdates: unknown;
}

export async function batchResultPage(db: Tx, batchId: string, afterSequence: number, limit: number): Promise<ResultRow[]> {
  const rows = await selectRows(
    db,
    sql`select o.sequence_number, o.order_id, o.id, o.status, o.status_reason, o.attempt_count, o.finished_at, o.confirmation_id,
        o.recovered_by, o.awaiting_card, o.card_updates, la.raw_code, la.raw_message, la.network_transaction_id, la.account_id, pa.label, pa.type
      from orders o
      left join lateral (
        select a.raw_code, a.raw_message, a.network_transaction_id, a.account_id from attempts a
        where a.order_session_key = o.id and a.status <> 'in_flight' order by a.attempt_no desc limit 1
      ) la on true
      left join processor_accounts pa on pa.id = la.account_id
      where o.batch_id = ${batchId} and o.sequence_number > ${afterSequence}
      order by o.sequence_number limit ${limit}`,
  );
  return rows.map((r) => ({
    sequenceNumber: r.sequence_number === null ? null : Number(r.sequence_number), orderId: r.order_id as string, orderSessionKey: r.id as string,
    status: r.status as string, reason: (r.status_reason as string | null) ?? null, attempts: Number(r.attempt_count),
    finishedAt: r.finished_at == null ? null : new Date(r.finished_at as string), confirmationId: (r.confirmation_id as string | null) ?? null,
    gateway: r.account_id == null && r.raw_code == null ? null : {
      account: (r.label as string | null) ?? null, type: (r.type as string | null) ?? null, rawCode: (r.raw_code as string | null) ?? null,
      rawMessage: (r.raw_message as string | null) ?? null, networkTransactionId: (r.network_transaction_id as string | null) ?? null,
    },
    recoveredBy: (r.recovered_by as string | null) ?? null, awaitingCard: r.awaiting_card ?? null, cardUpdates: r.card_updates ?? null,
  }));
}

export async function markResultsWritten(db: Tx, batchId: string, at: Date): Promise<void> {
  await db.update(batches).set({ resultsWrittenAt: at }).where(and(eq(batches.id, batchId), isNull(batches.resultsWrittenAt)));
}
