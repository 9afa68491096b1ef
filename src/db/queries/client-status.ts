import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { apiClients, merchants } from '../schema.ts';

/**
 * Whether an access token issued to `clientId` still speaks for its merchant: the client is
 * not revoked (rotate-secret --api-client revokes the old one) and the merchant is active.
 */
export async function isClientActive(db: Db, merchantId: string, clientId: string): Promise<boolean> {
  const [row] = await db
    .select({ status: merchants.status })
    .from(apiClients)
    .innerJoin(merchants, eq(merchants.id, apiClients.merchantId))
    .where(and(eq(apiClients.merchantId, merchantId), eq(apiClients.clientId, clientId), isNull(apiClients.revokedAt)))
    .limit(1);
  return row?.status === 'active';
}
