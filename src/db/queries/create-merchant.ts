import type { Db } from '../client.ts';
import { apiClients, merchants, sftpUsers, sites, tokenizationKeys, webhookEndpoints } from '../schema.ts';

export interface NewMerchantRow {
  mid: string;
  name: string;
  siteId: string;
  siteUrl: string | null;
  clientId: string;
  clientSecretHash: string;
  tokenizationKeyHash: string;
  webhookSecretSealed: (merchantId: string) => string;
  sftpUsername: string;
}

/** Creates a merchant with its first site, API client, tokenization key, webhook endpoint and SFTP user, atomically. */
export async function createMerchant(db: Db, row: NewMerchantRow): Promise<{ merchantId: string }> {
  return db.transaction(async (tx) => {
    const [merchant] = await tx.insert(merchants).values({ mid: row.mid, name: row.name }).returning({ id: merchants.id });
    const merchantId = merchant!.id;
    await tx.insert(sites).values({ id: row.siteId, merchantId, url: row.siteUrl });
    await tx.insert(apiClients).values({ merchantId, clientId: row.clientId, secretHash: row.clientSecretHash });
    await tx.insert(tokenizationKeys).values({ merchantId, keyHash: row.tokenizationKeyHash });
    await tx.insert(webhookEndpoints).values({ merchantId, secretSealed: row.webhookSecretSealed(merchantId) });
    await tx.insert(sftpUsers).values({ merchantId, username: row.sftpUsername });
    return { merchantId };
  });
}
