import { eq } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { merchants } from '../schema.ts';

export async function isMerchantActive(db: Db, merchantId: string): Promise<boolean> {
  const [row] = await db.select({ status: merchants.status }).from(merchants).where(eq(merchants.id, merchantId)).limit(1);
  return row?.status === 'active';
}
