// The sweeps' statements. Each reads only a partial index (orders_open_expiry_idx,
// orders_lease_idx, idempotency_records_expires_idx), so its cost follows the rows it
// changes, not the number of orders. Rows held by a worker are skipped (SKIP LOCKED) and
// taken by the next run.
import { sql } from 'drizzle-orm';
import type { DbOrTx as Tx } from '../client.ts';
import { selectRows, toWorkOrder, type WorkOrder } from './claim-orders.ts';


/** The sweep runs only where this transaction got the lock: one replica at a time. */
export async function tryAdvisoryXactLock(tx: Tx, key: bigint): Promise<boolean> {
  const [row] = await selectRows(tx, sql`select pg_try_advisory_xact_lock(${key.toString()}::bigint) as locked`);
  return row?.locked === true;
}

/**
 * Open orders (not in flight) past expiresAt → EXPIRED; returns them with their previous
 * status. An order whose attempt is still in flight (its instance died, or the processor
 * failed to answer) is left to the engine: it re-sends that attempt with the same key, gets
 * the processor's stored answer and records it, so the attempt does not stay in flight forever.
 */
export async function expireOrders(tx: Tx, now: Date, limit: number): Promise<Array<WorkOrder & { previous: string; statusReason: string }>> {
  const at = now.toISOString();
  const rows = await selectRows(
    tx,
    sql`with due as (
      select id, status from orders
      where status in ('SUBMITTED', 'PENDING', 'CHALLENGE') and expires_at <= ${at}::timestamptz
        and not exists (select 1 from attempts a where a.order_session_key = orders.id and a.status = 'in_flight')
      order by expires_at
      limit ${limit}
      for update skip locked
    )
    update orders o set status = 'EXPIRED', plan_reason = 'expiry_reached', next_attempt_at = null,
      -- An order that waited for an updated card in vain ends with the decline that made it wait.
      status_reason = coalesce(case when o.plan_reason = 'awaiting_updated_card' then o.awaiting_card->>'reason' end, 'expiry_reached'),
      finished_at = ${at}::timestamptz, updated_at = ${at}::timestamptz
    from due where o.id = due.id
    returning due.status as previous, o.id, o.merchant_id, o.batch_id, o.order_id, o.status, o.amount, o.currency, o.card_token, o.card_brand, o.card_bin,
      o.expires_at, o.decline_code, o.decline_source, o.request, o.plan_reason, o.attempt_count, o.created_at, o.lease_owner, o.credential, o.card_updates,
      o.status_reason`,
  );
  return rows.map((r) => ({ ...toWorkOrder(r), previous: r.previous as string, statusReason: (r.status_reason as string | null) ?? 'expiry_reached' }));
}

/** PROCESSING orders whose lease ran out → PENDING, due now; returns how many. */
export async function reclaimLeases(tx: Tx, now: Date, limit: number): Promise<number> {
  const at = now.toISOString();
  const rows = await selectRows(
    tx,
    sql`with lost as (
      select id from orders
      where status = 'PROCESSING' and lease_expires_at <= ${at}::timestamptz
      order by lease_expires_at
      limit ${limit}
      for update skip locked
    )
    update orders o set status = 'PENDING', lease_owner = null, lease_expires_at = null, next_attempt_at = ${at}::timestamptz, updated_at = ${at}::timestamptz
    from lost where o.id = lost.id
    returning o.id`,
  );
  return rows.length;
}

/** Up to `limit` expired records, oldest first (idempotency_records_expires_idx). */
export async function pruneIdempotencyRecords(tx: Tx, now: Date, limit: number): Promise<number> {
  const [row] = await selectRows(
    tx,
    sql`with d as (delete from idempotency_records where (merchant_id, key) in
      (select merchant_id, key from idempotency_records where expires_at < ${now.toISOString()}::timestamptz order by expires_at limit ${limit}) returning 1)
    select count(*)::int as n from d`,
  );
  return Number(row?.n ?? 0);
}

export interface UnvoidedApproval {
  id: string;
  orderSessionKey: string;
  idempotencyKey: string;
  currency: string;
  processorRef: string;
  /** The account that approved: the void goes back through it. */
  accountId: string | null;
}

/**
 * Approvals recorded on an order cancelled (or expired) meanwhile whose void was not sent or
 * not recorded (a crash in between). No index serves this scan, so it runs with the hourly
 * pruning, and at start, right after the crash that leaves such rows.
 */
export async function unvoidedApprovals(tx: Tx, limit: number): Promise<UnvoidedApproval[]> {
  const rows = await selectRows(
    tx,
    sql`select id, order_session_key, idempotency_key, currency, processor_ref, account_id from attempts
      where status = 'approved' and reason = 'to_be_voided' and processor_ref is not null
      order by started_at limit ${limit}`,
  );
  return rows.map((r) => ({
    id: r.id as string, orderSessionKey: r.order_session_key as string, idempotencyKey: r.idempotency_key as string,
    currency: r.currency as string, processorRef: r.processor_ref as string, accountId: (r.account_id as string | null) ?? null,
  }));
}
