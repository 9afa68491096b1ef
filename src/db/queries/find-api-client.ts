import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { apiClients, merchants } from '../schema.ts';

export interface ApiClientRow {
  clientId: string;
  secretHash: string;
  merchantId: string;
  mid: string;
  merchantStatus: 'active' | 'disabled';
}

/** A live (not revoked) API client with its merchant, for the token endpoint. */
export async function findApiClient(db: Db, clientId: string): Promise<ApiClientRow | undefined> {
  const [row] = await db
    .select({
      clientId: apiClients.clientId,
      secretHash: apiClients.secretHash,
      merchantId: merchants.id,
      mid: merchants.mid,
      merchantStatus: merchants.status,
    })
    .from(apiClients)
    .innerJoin(merchants, eq(merchants.id, apiClients.merchantId))
    .where(and(eq(apiClients.clientId, clientId), isNull(apiClients.revokedAt)))
    .limit(1);
  return row;
}
