import { and, eq, inArray } from 'drizzle-orm';
import type { DbOrTx as Tx } from '../client.ts';
import { cards } from '../schema.ts';


/** Which of these tokens are cards of this merchant: one query for a whole chunk of entries. */
export async function findCardTokens(db: Tx, merchantId: string, tokens: string[]): Promise<Set<string>> {
  if (tokens.length === 0) return new Set();
  const rows = await db.select({ token: cards.token }).from(cards).where(and(eq(cards.merchantId, merchantId), inArray(cards.token, [...new Set(tokens)])));
  return new Set(rows.map((r) => r.token));
}
