// A merchant's order by its own orderId (unique per merchant): the batch form of a card update
// may name the order that way.
import { and, eq } from 'drizzle-orm';
import type { DbOrTx as Tx } from '../client.ts';
import { orders } from '../schema.ts';
import type { OrderRow } from './find-order.ts';

export async function findOrderByOrderId(db: Tx, merchantId: string, orderId: string): Promise<OrderRow | undefined> {
  const [row] = await db.select().from(orders).where(and(eq(orders.merchantId, merchantId), eq(orders.orderId, orderId))).limit(1);
  return row;
}
