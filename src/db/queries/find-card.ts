import { and, eq } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { cards } from '../schema.ts';
import type { CardRow } from './insert-cards.ts';

/** The card of one merchant by token; another merchant's token finds nothing. */
export async function findCardByToken(db: Db, merchantId: string, token: string): Promise<CardRow | undefined> {
  const [row] = await db.select().from(cards).where(and(eq(cards.token, token), eq(cards.merchantId, merchantId))).limit(1);
  return row;
}
