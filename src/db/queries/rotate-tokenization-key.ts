// `merchant rotate-tokenization-key`: a new key for the merchant, and every key still live
// revoked, at once or after a grace. `revoked_at` is the moment a key stops working, so a
// grace is a revocation time in the future (find-tokenization-key.ts compares it with now()).
import { and, eq, gt, isNull, or, sql } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { merchants, tokenizationKeys } from '../schema.ts';

export interface RevokedKey {
  createdAt: Date;
  /** When the key stops working: now, or the end of its grace. */
  revokedAt: Date;
}

/**
 * Revokes the merchant's live keys `keepOldForMs` from now (the database's clock, the one the
 * look-up compares with) and stores `newKeyHash`, in one transaction. A key already due to
 * stop sooner (the grace of an earlier rotation) keeps its earlier time: a rotation never
 * lengthens an old key's life. The merchant's row is locked first, so two rotations at once
 * run one after the other and the second revokes the first's new key.
 */
export async function rotateTokenizationKey(db: Db, merchantId: string, newKeyHash: string, keepOldForMs: number): Promise<RevokedKey[]> {
  return db.transaction(async (tx) => {
    await tx.select({ id: merchants.id }).from(merchants).where(eq(merchants.id, merchantId)).for('update');
    const until = sql`now() + ${keepOldForMs}::float8 * interval '1 millisecond'`;
    const revoked = await tx
      .update(tokenizationKeys)
      .set({ revokedAt: sql`least(coalesce(${tokenizationKeys.revokedAt}, ${until}), ${until})` })
      .where(and(eq(tokenizationKeys.merchantId, merchantId), or(isNull(tokenizationKeys.revokedAt), gt(tokenizationKeys.revokedAt, sql`now()`))))
      .returning({ createdAt: tokenizationKeys.createdAt, revokedAt: tokenizationKeys.revokedAt });
    await tx.insert(tokenizationKeys).values({ merchantId, keyHash: newKeyHash });
    return revoked.map((k) => ({ createdAt: k.createdAt, revokedAt: k.revokedAt! }));
  });
}
