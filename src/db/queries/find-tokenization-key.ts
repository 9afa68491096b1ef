import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { merchants, tokenizationKeys } from '../schema.ts';

export interface TokenizationKeyRow {
  merchantId: string;
  mid: string;
  merchantStatus: 'active' | 'disabled';
}

/** A live (not revoked) tokenization key by its digest, with its merchant. */
export async function findTokenizationKey(db: Db, keyHash: string): Promise<TokenizationKeyRow | undefined> {
  const [row] = await db
    .select({ merchantId: merchants.id, mid: merchants.mid, merchantStatus: merchants.status })
    .from(tokenizationKeys)
    .innerJoin(merchants, eq(merchants.id, tokenizationKeys.merchantId))
    .where(and(eq(tokenizationKeys.keyHash, keyHash), isNull(tokenizationKeys.revokedAt)))
    .limit(1);
  return row;
}
