// Batches in progress: files being ingested (their batch_progress row, written by intake
// while the file's transaction is open), then accepted batches whose results file is not
// written yet, with how far their orders got.
//
// Index use: batch_progress holds one row per file being read, so it is tiny. The batches
// come from batches_results_pending_idx (the partial index the batch-finishing sweep reads);
// each batch's orders from orders_batch_sequence_idx (batch_id leads). That count visits every
// order of a batch in progress, so a 1,000,000-entry batch costs a million index entries per
// call: the console polls it every few seconds, not faster.
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { rowsOf } from '../../db/queries/raw-rows.ts';
import type { BatchProgress } from '../schema.ts';
import { isoOrNull, num, scopeWhere, type ReportScope } from './scope.ts';

/** Batches listed at most, of each phase: the oldest first, which are the ones an operator worries about. */
export const BATCHES_SHOWN = 50;

async function ingesting(db: Db, scope: ReportScope): Promise<BatchProgress[]> {
  const result = await db.execute(sql`
    select p.batch_id, p.file_name, m.mid, p.started_at, p.entry_count, p.accepted_count, p.rejected_count
    from batch_progress p join merchants m on m.id = p.merchant_id
    where ${scopeWhere('p', { ...scope, since: undefined })}
    order by p.started_at, p.batch_id
    limit ${BATCHES_SHOWN}`);
  return rowsOf(result).map((r) => {
    const entries = num(r.entry_count);
    const accepted = num(r.accepted_count);
    const rejected = num(r.rejected_count);
    return {
      batchId: String(r.batch_id), phase: 'ingesting', fileName: String(r.file_name), mid: String(r.mid), receivedAt: isoOrNull(r.started_at) ?? '',
      entries, accepted, rejected, final: 0, approved: 0, expired: 0, cancelled: 0,
      progress: entries === 0 ? 0 : Math.min(1, (accepted + rejected) / entries),
    };
  });
}

async function rescuing(db: Db, scope: ReportScope): Promise<BatchProgress[]> {
  const result = await db.execute(sql`
    select b.id, b.status, b.file_name, m.mid, b.received_at, b.entry_count, b.accepted_count, b.rejected_count, p.*
    from batches b
    join merchants m on m.id = b.merchant_id
    cross join lateral (
      select count(*) filter (where o.status in ('APPROVED', 'DECLINED', 'EXPIRED', 'CANCELLED')) as final,
        count(*) filter (where o.status = 'APPROVED') as approved,
        count(*) filter (where o.status = 'EXPIRED') as expired,
        count(*) filter (where o.status = 'CANCELLED') as cancelled
      from orders o where o.batch_id = b.id
    ) p
    where ${scopeWhere('b', { ...scope, since: undefined }, undefined, [sql`b.results_written_at is null`, sql`b.status <> 'rejected'`])}
    order by b.received_at, b.id
    limit ${BATCHES_SHOWN}`);
  return rowsOf(result).map((r) => {
    const accepted = num(r.accepted_count);
    const final = num(r.final);
    // A large file's batch is stored while its orders are rescued (src/intake/staged.ts): until
    // its last entry is, it is `ingesting`, its progress the entries stored.
    if (r.status === 'ingesting') {
      const entries = num(r.entry_count);
      return {
        batchId: String(r.id), phase: 'ingesting', fileName: String(r.file_name), mid: String(r.mid), receivedAt: isoOrNull(r.received_at) ?? '',
        entries, accepted, rejected: num(r.rejected_count), final, approved: num(r.approved), expired: num(r.expired), cancelled: num(r.cancelled),
        progress: entries === 0 ? 0 : Math.min(1, (accepted + num(r.rejected_count)) / entries),
      } satisfies BatchProgress;
    }
    return {
      batchId: String(r.id), phase: 'rescuing', fileName: String(r.file_name), mid: String(r.mid), receivedAt: isoOrNull(r.received_at) ?? '',
      entries: num(r.entry_count), accepted, rejected: num(r.rejected_count),
      final, approved: num(r.approved), expired: num(r.expired), cancelled: num(r.cancelled),
      progress: accepted === 0 ? 1 : Math.min(1, final / accepted),
    };
  });
}

export async function batchesInProgress(db: Db, scope: ReportScope): Promise<BatchProgress[]> {
  return [...(await ingesting(db, scope)), ...(await rescuing(db, scope))];
}
