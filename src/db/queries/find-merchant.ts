import { and, eq, gt, isNull, or, sql } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { apiClients, merchants, sftpAllowedCidrs, sftpKeys, sftpUsers, sites, tokenizationKeys, webhookEndpoints } from '../schema.ts';

export type MerchantRow = typeof merchants.$inferSelect;

export async function findMerchantByMid(db: Db, mid: string): Promise<MerchantRow | undefined> {
  const [row] = await db.select().from(merchants).where(eq(merchants.mid, mid.toLowerCase())).limit(1);
  return row;
}

/** Everything `merchant show` prints: never a secret or a digest of one. */
export async function merchantDetails(db: Db, merchantId: string) {
  const [siteRows, clientRows, keyRows, webhook, sftpUser] = await Promise.all([
    db.select({ siteId: sites.id, url: sites.url }).from(sites).where(eq(sites.merchantId, merchantId)),
    db
      .select({ clientId: apiClients.clientId, createdAt: apiClients.createdAt })
      .from(apiClients)
      .where(and(eq(apiClients.merchantId, merchantId), isNull(apiClients.revokedAt))),
    // Live keys: when each was made and, in a rotation's grace, when it stops working.
    db
      .select({ createdAt: tokenizationKeys.createdAt, validUntil: tokenizationKeys.revokedAt })
      .from(tokenizationKeys)
      .where(and(eq(tokenizationKeys.merchantId, merchantId), or(isNull(tokenizationKeys.revokedAt), gt(tokenizationKeys.revokedAt, sql`now()`))))
      .orderBy(tokenizationKeys.createdAt),
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
  return { sites: siteRows, apiClients: clientRows, tokenizationKeys: keyRows, webhook, sftp: sftpUser ? { username: sftpUser.username, keys, allowedCidrs: cidrs.map((c) => c.cidr) } : undefined };
}

/** The merchant's site ids, lower-cased: a batch entry must name one of them. */
export async function siteIdsOf(db: Db, merchantId: string): Promise<Set<string>> {
  const rows = await db.select({ id: sites.id }).from(sites).where(eq(sites.merchantId, merchantId));
  return new Set(rows.map((r) => r.id.toLowerCase()));
}
