// The sandbox processor's memory of its answers (table processor_calls), one row per
// idempotency key. Each statement runs on its own (autocommit): an answer is durable before
// the processor returns it, as a real processor's idempotency store would be.
import { asc, inArray, lt } from 'drizzle-orm';
import type { Db, DbOrTx as Tx } from '../client.ts';
import { processorCalls } from '../schema.ts';


export type ProcessorCallRow = typeof processorCalls.$inferSelect;
export type NewProcessorCall = typeof processorCalls.$inferInsert;

/** The calls of many references in one statement (a group of calls arriving together), oldest first. */
export async function callsOfReferences(db: Db, references: string[]): Promise<ProcessorCallRow[]> {
  if (references.length === 0) return [];
  return db.select().from(processorCalls).where(inArray(processorCalls.reference, references)).orderBy(asc(processorCalls.createdAt));
}

export async function findProcessorCalls(db: Db, keys: string[]): Promise<ProcessorCallRow[]> {
  if (keys.length === 0) return [];
  return db.select().from(processorCalls).where(inArray(processorCalls.idempotencyKey, keys));
}

/** Stores many answers in one statement; returns the keys stored (a key another call stored first is not). */
export async function insertProcessorCalls(db: Db, rows: NewProcessorCall[]): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const inserted = await db.insert(processorCalls).values(rows).onConflictDoNothing().returning({ key: processorCalls.idempotencyKey });
  return new Set(inserted.map((r) => r.key));
}

/** Forgets up to `limit` answers older than `before`; returns how many. */
export async function pruneProcessorCalls(db: Tx, before: Date, limit: number): Promise<number> {
  const old = db.select({ key: processorCalls.idempotencyKey }).from(processorCalls).where(lt(processorCalls.createdAt, before)).limit(limit);
  const rows = await db.delete(processorCalls).where(inArray(processorCalls.idempotencyKey, old)).returning({ key: processorCalls.idempotencyKey });
  return rows.length;
}
