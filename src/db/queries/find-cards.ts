import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { cards } from '../schema.ts';
import type { CardRow } from './insert-cards.ts';

/** Many cards of one merchant by token in one statement; another merchant's tokens find nothing. */
export async function findCardsByTokens(db: Db, merchantId: string, tokens: string[]): Promise<CardRow[]> {
  if (tokens.length === 0) return [];
  return db.select().from(cards).where(and(eq(cards.merchantId, merchantId), inArray(cards.token, tokens)));
}
