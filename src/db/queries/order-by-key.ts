// One order by its orderSessionKey, whatever the merchant (operator inspection from the CLI),
// with its merchant's mid.
import { eq } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { merchants, orders } from '../schema.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function findOrderByKey(db: Db, orderSessionKey: string) {
  if (!UUID.test(orderSessionKey)) return undefined;
  const [row] = await db
    .select({ order: orders, mid: merchants.mid })
    .from(orders)
    .innerJoin(merchants, eq(merchants.id, orders.merchantId))
    .where(eq(orders.id, orderSessionKey.toLowerCase()))
    .limit(1);
  return row;
}
