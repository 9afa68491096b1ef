// The engine's claims (DESIGN.md §6, graphile-worker's getJobs): due orders are picked and
// moved in ONE statement, `SELECT … FOR UPDATE SKIP LOCKED` feeding `UPDATE … RETURNING`, so
// two instances never take the same order and a claim costs one round trip. The status tests
// match the partial indexes (orders_pending_due_idx for PENDING, orders_due_idx for SUBMITTED
// and both), so the cost grows neither with orders not due nor with those still SUBMITTED.
import { sql } from 'drizzle-orm';
import type { DbOrTx as Tx } from '../client.ts';
import { rowsOf, type RawRow, dateOf } from './raw-rows.ts';


/** An order as the engine works on it. */
export interface WorkOrder {
  id: string;
  merchantId: string;
  batchId: string | null;
  orderId: string;
  status: string;
  amount: number;
  currency: string;
  cardToken: string;
  cardBrand: string | null;
  /** The card's first digits as the order gave them (the learned timing's issuer). */
  cardBin: string | null;
  expiresAt: Date | null;
  declineCode: string;
  declineSource: string;
  request: unknown;
  planReason: string | null;
  attemptCount: number;
  createdAt: Date;
  leaseOwner: string | null;
  /** The credential charged and counted now when not cardToken (src/domain/card-updates.ts); null: cardToken. */
  credential: string | null;
  /** orders.card_updates as stored (decoded by src/domain/card-updates.ts). */
  cardUpdates: unknown;
}

export const WORK_COLUMNS = sql.raw(
  'id, merchant_id, batch_id, order_id, status, amount, currency, card_token, card_brand, card_bin, expires_at, decline_code, decline_source, request, plan_reason, attempt_count, created_at, lease_owner, credential, card_updates',
);

const json = (v: unknown): unknown => (typeof v === 'string' ? JSON.parse(v) : v);

export function toWorkOrder(r: Record<string, unknown>): WorkOrder {
  return {
    id: r.id as string,
    merchantId: r.merchant_id as string,
    batchId: (r.batch_id as string | null) ?? null,
    orderId: r.order_id as string,
    status: r.status as string,
    amount: Number(r.amount),
    currency: r.currency as string,
    cardToken: r.card_token as string,
    cardBrand: (r.card_brand as string | null) ?? null,
    cardBin: (r.card_bin as string | null) ?? null,
    expiresAt: r.expires_at == null ? null : dateOf(r.expires_at),
    declineCode: r.decline_code as string,
    declineSource: r.decline_source as string,
    request: json(r.request),
    planReason: (r.plan_reason as string | null) ?? null,
    attemptCount: Number(r.attempt_count),
    createdAt: dateOf(r.created_at),
    leaseOwner: (r.lease_owner as string | null) ?? null,
    credential: (r.credential as string | null) ?? null,
    cardUpdates: r.card_updates == null ? null : json(r.card_updates),
  };
}

/** Runs a raw statement and answers its rows, whichever driver runs it. */
export async function selectRows(db: Tx, query: ReturnType<typeof sql>): Promise<RawRow[]> {
  return rowsOf(await db.execute(query));
}

/** Due PENDING orders → PROCESSING with a lease held by `owner` until `leaseUntil`. */
export async function claimDueOrders(db: Tx, owner: string, now: Date, leaseUntil: Date, limit: number): Promise<WorkOrder[]> {
  const rows = await selectRows(
    db,
    sql`with due as (
      select id from orders
      where status = 'PENDING' and next_attempt_at <= ${now.toISOString()}::timestamptz
      order by next_attempt_at
      limit ${limit}
      for update skip locked
    )
    update orders o set status = 'PROCESSING', lease_owner = ${owner}, lease_expires_at = ${leaseUntil.toISOString()}::timestamptz, updated_at = ${now.toISOString()}::timestamptz
    from due where o.id = due.id
    returning o.id, o.merchant_id, o.batch_id, o.order_id, o.status, o.amount, o.currency, o.card_token, o.card_brand, o.card_bin, o.expires_at,
      o.decline_code, o.decline_source, o.request, o.plan_reason, o.attempt_count, o.created_at, o.lease_owner, o.credential, o.card_updates`,
  );
  return rows.map(toWorkOrder);
}

/**
 * SUBMITTED orders whose first look is due, locked for the caller's transaction (the planner
 * runs between this read and the update, so it cannot be one statement; SKIP LOCKED keeps two
 * instances off the same rows).
 */
export async function lockSubmittedOrders(tx: Tx, now: Date, limit: number): Promise<WorkOrder[]> {
  const rows = await selectRows(
    tx,
    sql`select ${WORK_COLUMNS} from orders
      where status = 'SUBMITTED' and next_attempt_at <= ${now.toISOString()}::timestamptz
      order by next_attempt_at
      limit ${limit}
      for update skip locked`,
  );
  return rows.map(toWorkOrder);
}

/** One order locked for the caller's transaction (recording an attempt's result). */
export async function lockOrder(tx: Tx, id: string): Promise<WorkOrder | undefined> {
  const rows = await selectRows(tx, sql`select ${WORK_COLUMNS} from orders where id = ${id} for update`);
  return rows[0] && toWorkOrder(rows[0]);
}
