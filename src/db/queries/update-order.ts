// Writes of the order service: a status change (with what goes with it) and an attempt row.
import { eq } from 'drizzle-orm';
import { attempts, orders } from '../schema.ts';
import type { DbOrTx as Tx } from '../client.ts';

export type OrderChange = Partial<Omit<typeof orders.$inferInsert, 'id' | 'merchantId'>>;

export async function updateOrder(tx: Tx, orderSessionKey: string, change: OrderChange): Promise<void> {
  await tx.update(orders).set(change).where(eq(orders.id, orderSessionKey));
}

export async function insertAttempt(tx: Tx, row: typeof attempts.$inferInsert): Promise<void> {
  await tx.insert(attempts).values(row);
}
