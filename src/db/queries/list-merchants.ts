import { asc, count } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { merchants } from '../schema.ts';

export async function listMerchants(db: Db) {
  return db
    .select({ mid: merchants.mid, name: merchants.name, status: merchants.status, createdAt: merchants.createdAt })
    .from(merchants)
    .orderBy(asc(merchants.createdAt));
}

export async function countMerchants(db: Db): Promise<number> {
  const [row] = await db.select({ n: count() }).from(merchants);
  return row?.n ?? 0;
}
