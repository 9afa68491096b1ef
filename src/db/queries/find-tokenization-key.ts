import { and, eq, gt, isNull, or, sql } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { merchants, tokenizationKeys } from '../schema.ts';

export interface TokenizationKeyRow {
  merchantId: string;
  mid: string;
  merchantStatus: 'active' | 'disabled';
}

/** A live tokenization key (not revoked, or its revocation still ahead: a rotation's grace) by its digest, with its merchant. */
export async function findTokenizationKey(db: Db, keyHash: string): Promise<TokenizationKeyRow | undefined> {
  const [row] = await db
    .select({ merchantId: merchants.id, mid: merchants.mid, merchantStatus: merchants.status })
    .from(tokenizationKeys)
    .innerJoin(merchants, eq(merchants.id, tokenizationKeys.merchantId))
    .where(and(eq(tokenizationKeys.keyHash, keyHash), or(isNull(tokenizationKeys.revokedAt), gt(tokenizationKeys.revokedAt, sql`now()`))))
    .limit(1);
  return row;
}
