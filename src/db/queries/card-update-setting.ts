// A merchant's card-update setting (merchants.await_updated_card): read by the engine when a
// decline means the card must change, and set by `rescued merchant set-card-updates`.
import { eq } from 'drizzle-orm';
import type { DbOrTx as Tx } from '../client.ts';
import { merchants } from '../schema.ts';

/** true/false: the merchant's own choice; null: the configuration's default. */
export async function awaitUpdatedCardOf(db: Tx, merchantId: string): Promise<boolean | null> {
  const [row] = await db.select({ v: merchants.awaitUpdatedCard }).from(merchants).where(eq(merchants.id, merchantId)).limit(1);
  return row?.v ?? null;
}

export async function setAwaitUpdatedCard(db: Tx, merchantId: string, value: boolean | null): Promise<void> {
  await db.update(merchants).set({ awaitUpdatedCard: value }).where(eq(merchants.id, merchantId));
}
