// The distinct original declines (source, code, card brand) of the orders in a scope: the
// console turns a decline reason of the recovery report back into the orders behind it by
// classifying each of these once, as the report does (src/reports/figures.ts, byReason), and
// listing the orders whose decline is one that classifies to the reason.
import { and, eq, gte, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { orders } from '../schema.ts';

export interface DeclineKey {
  source: string;
  code: string;
  brand: string | null;
}

export async function declineKeys(db: Db, scope: { merchantId?: string | undefined; since?: Date | undefined; status?: string | undefined; batchId?: string | undefined }): Promise<DeclineKey[]> {
  const where: SQL[] = [];
  if (scope.merchantId) where.push(eq(orders.merchantId, scope.merchantId));
  if (scope.since) where.push(gte(orders.createdAt, scope.since));
  if (scope.status) where.push(eq(orders.status, scope.status));
  if (scope.batchId) where.push(eq(orders.batchId, scope.batchId));
  return db
    .selectDistinct({ source: orders.declineSource, code: orders.declineCode, brand: orders.cardBrand })
    .from(orders)
    .where(and(...where));
}

/** The orders whose decline is one of `keys` (none: no order). */
export function declineIn(keys: DeclineKey[]): SQL {
  if (keys.length === 0) return sql`false`;
  const one = (k: DeclineKey) => sql`(${orders.declineSource} = ${k.source} and ${orders.declineCode} = ${k.code} and ${orders.cardBrand} is not distinct from ${k.brand})`;
  return sql`(${sql.join(keys.map(one), sql` or `)})`;
}
