// Attempt rows read back as the planner's histories, and the void of an approval. They are
// started by the claim (claim-attempts.ts) and finished in groups (record-attempts.ts).
import { and, asc, eq } from 'drizzle-orm';
import type { DbOrTx as Tx } from '../client.ts';
import { attempts } from '../schema.ts';

export type AttemptRow = typeof attempts.$inferSelect;
export type NewAttempt = typeof attempts.$inferInsert;

export type AttemptResult = Pick<AttemptRow, 'status' | 'responseCode' | 'adviceCode' | 'declineClass' | 'reason' | 'processorRef' | 'latencyMs' | 'finishedAt'> &
  Partial<Pick<AttemptRow, 'accountId' | 'route' | 'rawCode' | 'rawMessage' | 'networkTransactionId'>>;

export async function orderAttempts(db: Tx, orderSessionKey: string): Promise<AttemptRow[]> {
  return db.select().from(attempts).where(eq(attempts.orderSessionKey, orderSessionKey)).orderBy(asc(attempts.attemptNo));
}

/** The approval of an attempt on a cancelled order, after the void call. */
export async function markVoided(db: Tx, id: string, reason: string, voided: boolean): Promise<void> {
  await db.update(attempts).set({ status: voided ? 'voided' : 'approved', reason }).where(and(eq(attempts.id, id), eq(attempts.status, 'approved')));
}
