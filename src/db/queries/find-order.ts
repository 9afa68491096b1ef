// One order of one merchant: another merchant's orderSessionKey finds nothing (404, not 403).
import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { attempts, orders, processorAccounts } from '../schema.ts';
import type { DbOrTx as Tx } from '../client.ts';

export type OrderRow = typeof orders.$inferSelect;
export type AttemptRow = typeof attempts.$inferSelect;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function findOrder(db: Db | Tx, merchantId: string, orderSessionKey: string): Promise<OrderRow | undefined> {
  // Not a uuid: no order, rather than a database type error.
  if (!UUID.test(orderSessionKey)) return undefined;
  const [row] = await db.select().from(orders).where(and(eq(orders.id, orderSessionKey.toLowerCase()), eq(orders.merchantId, merchantId))).limit(1);
  return row;
}

/** The same, locked for the rest of the transaction: state changes made through the API are serialised per order. */
export async function lockOrder(tx: Tx, merchantId: string, orderSessionKey: string): Promise<OrderRow | undefined> {
  if (!UUID.test(orderSessionKey)) return undefined;
  const [row] = await tx.select().from(orders).where(and(eq(orders.id, orderSessionKey.toLowerCase()), eq(orders.merchantId, merchantId))).for('update').limit(1);
  return row;
}

/** An attempt with the label and type of the account it went through (null: the built-in sandbox). */
export type AttemptWithAccount = AttemptRow & { accountLabel: string | null; accountType: string | null };

export async function listAttempts(db: Db, orderSessionKey: string): Promise<AttemptWithAccount[]> {
  const rows = await db
    .select({ a: attempts, label: processorAccounts.label, type: processorAccounts.type })
    .from(attempts)
    .leftJoin(processorAccounts, eq(processorAccounts.id, attempts.accountId))
    .where(eq(attempts.orderSessionKey, orderSessionKey))
    .orderBy(asc(attempts.attemptNo));
  return rows.map((r) => ({ ...r.a, accountLabel: r.label, accountType: r.type }));
}
