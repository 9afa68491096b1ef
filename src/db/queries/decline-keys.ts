// The distinct original declines (source, code, card brand, and the request's texts where they
// decide) of the orders in a scope: the console turns a decline reason of the recovery report
// back into the orders behind it by resolving each of these once, as the report does
// (src/reports/figures.ts, byReason), and listing the orders whose decline resolves to it.
import { and, eq, gte, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { orders } from '../schema.ts';

export interface DeclineKey {
  source: string;
  code: string;
  brand: string | null;
  /** The original decline's Mastercard advice (transaction.merchantAdviceCode). */
  advice: string | null;
  /**
   * The request's transaction texts, for a decline whose reason they can decide (a code in no
   * table, a Stripe code: src/declines/original.ts textCanDecide); absent: any text.
   */
  texts?: { description: string | null; subStatus: string | null };
}

type Scope = { merchantId?: string | undefined; since?: Date | undefined; status?: string | undefined; batchId?: string | undefined };

const description = sql<string | null>`${orders.request}->'transaction'->>'responseDescription'`;
const subStatus = sql<string | null>`${orders.request}->'transaction'->>'responseSubStatus'`;

function scopeWhere(scope: Scope): SQL[] {
  const where: SQL[] = [];
  if (scope.merchantId) where.push(eq(orders.merchantId, scope.merchantId));
  if (scope.since) where.push(gte(orders.createdAt, scope.since));
  if (scope.status) where.push(eq(orders.status, scope.status));
  if (scope.batchId) where.push(eq(orders.batchId, scope.batchId));
  return where;
}

export async function declineKeys(db: Db, scope: Scope): Promise<DeclineKey[]> {
  return db
    .selectDistinct({ source: orders.declineSource, code: orders.declineCode, brand: orders.cardBrand, advice: orders.declineAdvice })
    .from(orders)
    .where(and(...scopeWhere(scope)));
}

/**
 * The same keys split by the request's texts, for the declines whose reason the texts can
 * decide: only those orders' requests are read, as the recovery report does.
 */
export async function declineTextKeys(db: Db, scope: Scope, keys: DeclineKey[]): Promise<DeclineKey[]> {
  if (keys.length === 0) return [];
  const rows = await db
    .selectDistinct({ source: orders.declineSource, code: orders.declineCode, brand: orders.cardBrand, advice: orders.declineAdvice, description, subStatus })
    .from(orders)
    .where(and(...scopeWhere(scope), declineIn(keys)));
  return rows.map((r) => ({ source: r.source, code: r.code, brand: r.brand, advice: r.advice, texts: { description: r.description, subStatus: r.subStatus } }));
}

/** The orders whose decline is one of `keys` (none: no order). */
export function declineIn(keys: DeclineKey[]): SQL {
  if (keys.length === 0) return sql`false`;
  const one = (k: DeclineKey) => {
    const key = sql`${orders.declineSource} = ${k.source} and ${orders.declineCode} = ${k.code} and ${orders.cardBrand} is not distinct from ${k.brand} and ${orders.declineAdvice} is not distinct from ${k.advice}`;
    if (!k.texts) return sql`(${key})`;
    return sql`(${key} and ${description} is not distinct from ${k.texts.description} and ${subStatus} is not distinct from ${k.texts.subStatus})`;
  };
  return sql`(${sql.join(keys.map(one), sql` or `)})`;
}
