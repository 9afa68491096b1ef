// A merchant's rescue options, one column each on `merchants` (schema.ts): read by the engine
// per order, set by `rescued merchant set`.
import { eq } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { merchants } from '../schema.ts';

export interface MerchantSettings {
  /** An order whose card ends hard continues on the payer's other stored cards. */
  cascadeOtherCards: boolean;
}

export async function merchantSettings(db: Db, merchantId: string): Promise<MerchantSettings | undefined> {
  const [row] = await db.select({ cascadeOtherCards: merchants.cascadeOtherCards }).from(merchants).where(eq(merchants.id, merchantId)).limit(1);
  return row;
}

/** Sets the given settings; the others keep their values. */
export async function setMerchantSettings(db: Db, merchantId: string, settings: Partial<MerchantSettings>): Promise<MerchantSettings> {
  if (Object.keys(settings).length === 0) return (await merchantSettings(db, merchantId))!;
  const [row] = await db.update(merchants).set(settings).where(eq(merchants.id, merchantId)).returning({ cascadeOtherCards: merchants.cascadeOtherCards });
  return row!;
}
