import { eq, sql } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { cards } from '../schema.ts';
import type { CardRow } from './insert-cards.ts';

export interface CardDetails {
  sealed: string;
  keyId: string;
  expMonth: number;
  expYear: number;
  brand: string | null;
  test: boolean;
}

/** A card tokenized again with a new expiry or holder name: same row, same token. */
export async function updateCardDetails(db: Db, id: string, details: CardDetails): Promise<CardRow> {
  const [row] = await db.update(cards).set({ ...details, updatedAt: sql`now()` }).where(eq(cards.id, id)).returning();
  return row!;
}
