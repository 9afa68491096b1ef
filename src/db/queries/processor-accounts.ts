// A merchant's gateway accounts: added, listed, removed (kept for the attempts that name
// them), and read back sealed for the router and `vault rotate`.
import { and, asc, eq, gt, isNull } from 'drizzle-orm';
import type { DbOrTx } from '../client.ts';
import { processorAccounts } from '../schema.ts';

export type ProcessorAccountRow = typeof processorAccounts.$inferSelect;
export type NewProcessorAccount = typeof processorAccounts.$inferInsert;

/** The additional data the credentials are sealed with: bound to the account's id. */
export const accountAad = (id: string) => `processor_accounts:${id}`;

const FIRST_UUID = '00000000-0000-0000-0000-000000000000';

/** Inserts an account; a new default first clears the merchant's current one. */
export async function insertProcessorAccount(db: DbOrTx, row: NewProcessorAccount & { id: string }): Promise<void> {
  if (row.isDefault) await clearDefault(db, row.merchantId);
  await db.insert(processorAccounts).values(row);
}

async function clearDefault(db: DbOrTx, merchantId: string): Promise<void> {
  await db.update(processorAccounts).set({ isDefault: false }).where(and(eq(processorAccounts.merchantId, merchantId), eq(processorAccounts.isDefault, true), isNull(processorAccounts.removedAt)));
}

/** The merchant's accounts in use, oldest first. */
export async function activeProcessorAccounts(db: DbOrTx, merchantId: string): Promise<ProcessorAccountRow[]> {
  return db.select().from(processorAccounts).where(and(eq(processorAccounts.merchantId, merchantId), isNull(processorAccounts.removedAt))).orderBy(asc(processorAccounts.createdAt), asc(processorAccounts.id));
}

export async function processorAccountById(db: DbOrTx, id: string): Promise<ProcessorAccountRow | undefined> {
  const [row] = await db.select().from(processorAccounts).where(eq(processorAccounts.id, id));
  return row;
}

/** Removes the account with this label; false when the merchant has none in use. */
export async function removeProcessorAccount(db: DbOrTx, merchantId: string, label: string, at: Date): Promise<boolean> {
  const rows = await db
    .update(processorAccounts)
    .set({ removedAt: at, isDefault: false })
    .where(and(eq(processorAccounts.merchantId, merchantId), eq(processorAccounts.label, label), isNull(processorAccounts.removedAt)))
    .returning({ id: processorAccounts.id });
  return rows.length > 0;
}

/** A page of sealed credentials in id order, removed accounts included (`vault rotate`). */
export async function processorAccountsPage(db: DbOrTx, afterId: string | undefined, limit: number): Promise<Pick<ProcessorAccountRow, 'id' | 'credentialsSealed'>[]> {
  return db
    .select({ id: processorAccounts.id, credentialsSealed: processorAccounts.credentialsSealed })
    .from(processorAccounts)
    .where(gt(processorAccounts.id, afterId ?? FIRST_UUID))
    .orderBy(asc(processorAccounts.id))
    .limit(limit);
}

/** Replaces sealed credentials that have not changed since they were read; how many did. */
export async function resealProcessorAccounts(db: DbOrTx, updates: { id: string; oldSealed: string; sealed: string }[]): Promise<number> {
  let n = 0;
  for (const u of updates) {
    const rows = await db
      .update(processorAccounts)
      .set({ credentialsSealed: u.sealed })
      .where(and(eq(processorAccounts.id, u.id), eq(processorAccounts.credentialsSealed, u.oldSealed)))
      .returning({ id: processorAccounts.id });
    n += rows.length;
  }
  return n;
}

