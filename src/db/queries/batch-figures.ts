// What became of one batch's orders: how many are in each status, and their amounts by
// currency (the approved ones are the recovered amount). One pass over the batch's orders
// on orders_batch_sequence_idx; a million-order batch reads a million index entries, so this
// serves `batches show` and GET /v1/batches/{id}, never a list.
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { orders } from '../schema.ts';

export interface StatusFigure {
  status: string;
  currency: string;
  count: number;
  /** Minor units. */
  amount: number;
}

export async function batchFigures(db: Db, batchId: string): Promise<StatusFigure[]> {
  const rows = await db
    .select({
      status: orders.status,
      currency: orders.currency,
      count: sql<number>`count(*)::int`,
      // bigint: a million orders of 200.00 overflow an int; read back as text by both drivers.
      amount: sql<string>`sum(${orders.amount})::bigint::text`,
    })
    .from(orders)
    .where(eq(orders.batchId, batchId))
    .groupBy(orders.status, orders.currency);
  return rows.map((r) => ({ status: r.status, currency: r.currency, count: Number(r.count), amount: Number(r.amount) }));
}
