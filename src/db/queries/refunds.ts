// Refund records: reserved under the order's row lock before the processor is called, so two
// refunds can never together exceed the captured amount; settled or reverted afterwards.
import { and, eq, sql } from 'drizzle-orm';
import { orders, refunds } from '../schema.ts';
import type { DbOrTx as Tx } from '../client.ts';

export type RefundRow = typeof refunds.$inferSelect;

export async function findRefund(tx: Tx, orderSessionKey: string, idempotencyKey: string): Promise<RefundRow | undefined> {
  const [row] = await tx.select().from(refunds).where(and(eq(refunds.orderSessionKey, orderSessionKey), eq(refunds.idempotencyKey, idempotencyKey))).limit(1);
  return row;
}

/** Inserts the refund and adds its amount to the order's refunded total (the caller holds the order's lock). */
export async function reserveRefund(tx: Tx, row: typeof refunds.$inferInsert & { id: string }): Promise<void> {
  await tx.insert(refunds).values(row);
  await tx.update(orders).set({ refundedAmount: sql`${orders.refundedAmount} + ${row.amount}` }).where(eq(orders.id, row.orderSessionKey));
}

export async function settleRefund(tx: Tx, id: string, processorRef: string): Promise<void> {
  await tx.update(refunds).set({ processorRef }).where(eq(refunds.id, id));
}

/** The processor refused: the record stays, FAILED, and the amount is no longer counted. */
export async function failRefund(tx: Tx, r: { id: string; orderSessionKey: string; amount: number }, message: string): Promise<void> {
  await tx.update(refunds).set({ status: 'FAILED', message }).where(eq(refunds.id, r.id));
  await tx.update(orders).set({ refundedAmount: sql`${orders.refundedAmount} - ${r.amount}` }).where(eq(orders.id, r.orderSessionKey));
}

/** The processor could not be reached: the reservation is removed, so the same request may be retried. */
export async function dropRefund(tx: Tx, r: { id: string; orderSessionKey: string; amount: number }): Promise<void> {
  await tx.delete(refunds).where(eq(refunds.id, r.id));
  await tx.update(orders).set({ refundedAmount: sql`${orders.refundedAmount} - ${r.amount}` }).where(eq(orders.id, r.orderSessionKey));
}
