import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { apiClients, merchants, sftpAllowedCidrs, sftpKeys, sftpUsers, sites, webhookEndpoints } from '../schema.ts';

export type MerchantRow = typeof merchants.$inferSelect;

export async function findMerchantByMid(db: Db, mid: string): Promise<MerchantRow | undefined> {
  const [row] = await db.select().from(merchants).where(eq(merchants.mid, mid.toLowerCase())).limit(1);
  return row;
}

/** Everything `merchant show` prints: never a secret or a digest of one. */
export async function merchantDetails(db: Db, merchantId: string) {
  const [siteRows, clientRows, webhook, sftpUser] = await Promise.all([
    db.select({ siteId: sites.id, url: sites.url }).from(sites).where(eq(sites.merchantId, merchantId)),
    db
      .select({ clientId: apiClients.clientId, createdAt: apiClients.createdAt })
      .from(apiClients)
      .where(and(eq(apiClients.merchantId, merchantId), isNull(apiClients.revokedAt))),
    db
      .select({ url: webhookEndpoints.url, enabled: webhookEndpoints.enabled, disabledReason: webhookEndpoints.disabledReason })
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.merchantId, merchantId))
      .then((r) => r[0]),
    db.select().from(sftpUsers).where(eq(sftpUsers.merchantId, merchantId)).then((r) => r[0]),
  ]);
  const keys = sftpUser
    ? await db.select({ algorithm: sftpKeys.algorithm, fingerprint: sftpKeys.fingerprint, comment: sftpKeys.comment }).from(sftpKeys).where(eq(sftpKeys.sftpUserId, sftpUser.id))
    : [];
  const cidrs = sftpUser ? await db.select({ cidr: sftpAllowedCidrs.cidr }).from(sftpAllowedCidrs).where(eq(sftpAllowedCidrs.sftpUserId, sftpUser.id)) : [];
  return { sites: siteRows, apiClients: clientRows, webhook, sftp: sftpUser ? { username: sftpUser.username, keys, allowedCidrs: cidrs.map((c) => c.cidr) } : undefined };
}
