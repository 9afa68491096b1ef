// Orders a page at a time, by keyset (GET /v1/orders, `rescued orders list|find`). Two orders:
// - a batch's orders by sequenceNumber, on orders_batch_sequence_idx;
// - otherwise newest first by (created_at, id), on orders_merchant_created_idx when one
//   merchant is named (the API always names the caller; the CLI may list every merchant,
//   an operator's occasional scan).
// The page ends with the key of its last row; the next page starts strictly after it, so a
// page costs the same at the millionth order as at the first. The request column (the
// normalised request, the largest) is never read here.
import { and, asc, desc, eq, gte, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { merchants, orders } from '../schema.ts';
import { declineIn, type DeclineKey } from './decline-keys.ts';

export interface OrderListFilter {
  merchantId?: string | undefined;
  status?: string | undefined;
  batchId?: string | undefined;
  since?: Date | undefined;
  /** The merchant's own orderId: unique per merchant, so at most one order per merchant. */
  orderId?: string | undefined;
  /** Only orders whose original decline is one of these (the console's decline-reason filter). */
  declines?: DeclineKey[] | undefined;
}

/** Where the previous page ended: its last (created_at, id), or its last sequenceNumber in a batch. */
export type OrderKey = { createdAt: string; id: string } | { sequenceNumber: number };

/**
 * created_at exactly, as text: JavaScript dates hold milliseconds, PostgreSQL microseconds,
 * and a key rounded to the millisecond would skip or repeat the orders in between.
 */
const createdKey = sql<string>`to_char(${orders.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

const columns = {
  id: orders.id,
  merchantId: orders.merchantId,
  mid: merchants.mid,
  batchId: orders.batchId,
  sequenceNumber: orders.sequenceNumber,
  orderId: orders.orderId,
  kind: orders.kind,
  status: orders.status,
  statusReason: orders.statusReason,
  amount: orders.amount,
  currency: orders.currency,
  refundedAmount: orders.refundedAmount,
  attemptCount: orders.attemptCount,
  confirmationId: orders.confirmationId,
  cardBrand: orders.cardBrand,
  cardLast4: orders.cardLast4,
  expiresAt: orders.expiresAt,
  nextAttemptAt: orders.nextAttemptAt,
  createdAt: orders.createdAt,
  updatedAt: orders.updatedAt,
  finishedAt: orders.finishedAt,
  createdKey,
};

export type OrderListRow = Awaited<ReturnType<typeof listOrders>>[number];

function conditions(f: OrderListFilter, after: OrderKey | undefined): SQL[] {
  const where: SQL[] = [];
  if (f.merchantId) where.push(eq(orders.merchantId, f.merchantId));
  // Every merchant's order with this orderId: one probe of orders_merchant_order_id_uq per
  // merchant (the array is read once), instead of a scan of every order for the second column.
  else if (f.orderId) where.push(sql`${orders.merchantId} = any(array(select ${merchants.id} from ${merchants}))`);
  if (f.orderId) where.push(eq(orders.orderId, f.orderId));
  if (f.batchId) where.push(eq(orders.batchId, f.batchId));
  if (f.status) where.push(eq(orders.status, f.status));
  if (f.since) where.push(gte(orders.createdAt, f.since));
  if (f.declines) where.push(declineIn(f.declines));
  if (after && 'sequenceNumber' in after) where.push(sql`${orders.sequenceNumber} > ${after.sequenceNumber}`);
  // A row comparison: the index walks on from the key instead of filtering every row before it.
  else if (after) where.push(sql`(${orders.createdAt}, ${orders.id}) < (${after.createdAt}::timestamptz, ${after.id}::uuid)`);
  return where;
}

/** Up to `limit` orders after `after` (none: from the start). */
export async function listOrders(db: Db, filter: OrderListFilter, after: OrderKey | undefined, limit: number) {
  if (!filter.merchantId && !filter.batchId && !filter.orderId) return everyMerchant(db, filter, after, limit);
  const query = db
    .select(columns)
    .from(orders)
    .innerJoin(merchants, eq(merchants.id, orders.merchantId))
    .where(and(...conditions(filter, after)));
  const ordered = filter.batchId ? query.orderBy(asc(orders.sequenceNumber)) : query.orderBy(desc(orders.createdAt), desc(orders.id));
  return ordered.limit(limit);
}

/**
 * Newest first across every merchant (the operator's CLI): each merchant's first `limit`
 * orders from its own index, then the newest `limit` of those. A plain ORDER BY over all
 * orders sorted every one of them: 980 ms a page on 1.1 million here, against a few ms.
 */
async function everyMerchant(db: Db, filter: OrderListFilter, after: OrderKey | undefined, limit: number) {
  const { mid: _mid, createdKey: _key, ...own } = columns;
  const top = db
    .select({ ...own, createdKey: createdKey.as('created_key') })
    .from(orders)
    .where(and(sql`${orders.merchantId} = ${merchants.id}`, ...conditions(filter, after)))
    .orderBy(desc(orders.createdAt), desc(orders.id))
    .limit(limit)
    .as('o');
  const { merchantId: _m, ...rest } = top._.selectedFields;
  return db
    .select({ ...rest, merchantId: merchants.id, mid: merchants.mid })
    .from(merchants)
    .crossJoinLateral(top)
    .orderBy(desc(top.createdAt), desc(top.id))
    .limit(limit);
}

/** The key a page ending with `row` hands to the next page. */
export function keyOf(row: OrderListRow, inBatch: boolean): OrderKey {
  return inBatch ? { sequenceNumber: row.sequenceNumber ?? 0 } : { createdAt: row.createdKey, id: row.id };
}
